// The model zoo by name, as --model takes it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lib/graph/graph.h"

namespace xtrain {

const std::vector<std::string>& model_names();

// Throws xtrain::Error naming --model and the allowed names for an unknown name.
std::shared_ptr<const Graph> build_model(const std::string& name, int num_classes);

}  // namespace xtrain
