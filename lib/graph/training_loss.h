// The loss every training plan ends with: torch.nn.CrossEntropyLoss (mean over the batch) with
// --label_smoothing. The trainer's plans end with it, and the memory plan sizes their arenas with
// it; its buffers do not depend on the smoothing.
#pragma once

#include <memory>

#include "lib/nn/layer.h"

namespace xtrain {

std::unique_ptr<const Layer> training_loss(float label_smoothing);

}  // namespace xtrain
