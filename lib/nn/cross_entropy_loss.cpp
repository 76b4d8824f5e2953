#include "lib/nn/cross_entropy_loss.h"

#include "lib/base/check.h"
#include "lib/kernels/cross_entropy.h"

namespace xtrain {
namespace {

kernels::CrossEntropyShape kernel_shape(const LayerCall& s, float label_smoothing) {
  const Shape& logits = s.inputs[0].shape;
  return {static_cast<int>(logits[0]), static_cast<int>(logits[1]), label_smoothing,
          s.label_mix != nullptr ? *s.label_mix : 1.0f};
}

}  // namespace

CrossEntropyLoss::CrossEntropyLoss(std::string name, float label_smoothing)
    : Layer(std::move(name)), label_smoothing_(label_smoothing) {
  XTRAIN_CHECK(label_smoothing >= 0.0f && label_smoothing <= 1.0f,
               "label smoothing must be in [0, 1], got {}", label_smoothing);
}

Shape CrossEntropyLoss::output_shape(const std::vector<Shape>& inputs) const {
  XTRAIN_CHECK(inputs[0].rank() == 2, "{}: expected logits [N, K], got {}", name(),
               inputs[0].str());
  return Shape{1};
}

size_t CrossEntropyLoss::saved_floats(const std::vector<Shape>& inputs) const {
  return inputs[0].numel();
}

void CrossEntropyLoss::forward(const LayerCall& s) const {
  s.output.f32()[0] = kernels::cross_entropy_forward(kernel_shape(s, label_smoothing_),
                                                     s.inputs[0].f32(), s.labels, s.saved, s.ex);
}

void CrossEntropyLoss::backward(const LayerCall& s) const {
  kernels::cross_entropy_backward(kernel_shape(s, label_smoothing_), s.saved, s.labels,
                                  s.dinputs[0].f32(), s.ex);
}

}  // namespace xtrain
