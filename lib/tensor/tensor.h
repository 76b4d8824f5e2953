// TensorView: a tensor's shape and elements in memory it does not own (a LayerCall's activations
// and gradients in a plan's arena). The elements are float32 or bfloat16 (`type`) at an untyped
// address: code reads them through the accessor of their type, f32() or bf16(), which throws on
// the other type, or hands kernels that take either type elements(). The check is one comparison
// per access, outside the kernels' loops.
#pragma once

#include "lib/tensor/elements.h"
#include "lib/tensor/shape.h"

namespace xtrain {

// Throws xtrain::Error: a view of `held` elements was read as `asked` ones.
[[noreturn]] void throw_wrong_element_type(ElementType held, ElementType asked);

struct TensorView {
  void* data = nullptr;
  Shape shape;
  ElementType type = ElementType::kFloat32;
  // Elements from one row (an NHWC pixel's channels) to the next, when the rows are columns of a
  // wider buffer: a part that a concatenation's output holds in place (plan_phases.h). 0: dense.
  int64_t row_stride = 0;

  int64_t numel() const { return shape.numel(); }
  int64_t row_elements() const { return row_stride > 0 ? row_stride : shape[shape.rank() - 1]; }
  bool empty() const { return data == nullptr; }
  float* f32() const {
    if (type != ElementType::kFloat32) throw_wrong_element_type(type, ElementType::kFloat32);
    return static_cast<float*>(data);
  }
  BFloat16* bf16() const {
    if (type != ElementType::kBFloat16) throw_wrong_element_type(type, ElementType::kBFloat16);
    return static_cast<BFloat16*>(data);
  }
  Elements elements() const { return {data, type}; }
};

}  // namespace xtrain
