#include "lib/graph/training_loss.h"

#include "lib/nn/cross_entropy_loss.h"

namespace xtrain {

std::unique_ptr<const Layer> training_loss(float label_smoothing) {
  return std::make_unique<CrossEntropyLoss>("loss", label_smoothing);
}

}  // namespace xtrain
