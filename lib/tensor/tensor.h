// Tensor: a float tensor that owns its aligned storage (inputs, outputs, test data), and
// TensorView, a non-owning view (parameters in a flat buffer, activations in a plan's arena).
#pragma once

#include "lib/tensor/aligned_buffer.h"
#include "lib/tensor/elements.h"
#include "lib/tensor/shape.h"

namespace xtrain {

struct TensorView {
  float* data = nullptr;  // bfloat16 elements when type says so (read them through elements())
  Shape shape;
  ElementType type = ElementType::kFloat32;
  // Elements from one row (an NHWC pixel's channels) to the next, when the rows are columns of a
  // wider buffer: a part that a concatenation's output holds in place (plan_phases.h). 0: dense.
  int64_t row_stride = 0;

  int64_t numel() const { return shape.numel(); }
  int64_t row_elements() const { return row_stride > 0 ? row_stride : shape[shape.rank() - 1]; }
  bool empty() const { return data == nullptr; }
  Elements elements() const { return {data, type}; }
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Shape shape) : shape_(std::move(shape)), storage_(shape_.numel()) {}

  float* data() { return storage_.data(); }
  const float* data() const { return storage_.data(); }
  const Shape& shape() const { return shape_; }
  int64_t numel() const { return shape_.numel(); }

 private:
  Shape shape_;
  AlignedBuffer storage_;
};

}  // namespace xtrain
