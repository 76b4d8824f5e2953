// The weights and inputs of scripts/make_golden.py, set by formula so that a test can run the
// same network as PyTorch did without PyTorch: every tensor value is a function of the tensor's
// name and its flat index in PyTorch's layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/graph/replica.h"
#include "lib/io/torch_layout.h"

namespace xtrain::testing {

// u(i, k) of make_golden.py: a 32-bit integer hash of (i, k) mapped to [-1, 1), exact in both
// languages.
double hashed_uniform(int64_t i, int64_t k);

// How each store entry is laid out in PyTorch (conv weights OIHW), as checkpoints convert them.
std::vector<TorchLayout> torch_layouts(const Graph& graph, const ParamStore& store);

// Sets every parameter of the replica's store to make_golden.py's formula (buffers and counters
// are left as they are).
void set_formula_parameters(Replica& replica);

}  // namespace xtrain::testing
