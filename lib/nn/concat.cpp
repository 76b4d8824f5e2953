#include "lib/nn/concat.h"

#include "lib/kernels/copy_columns.h"
#include "lib/nn/nhwc.h"

namespace xtrain {
namespace {

int64_t pixels(const Shape& x) { return x[0] * x[1] * x[2]; }

// Calls fn(input, its first column) for each input not held in place: those a plan did not put
// in its columns of `whole` (the output, or its gradient), with whole's row stride.
template <typename Fn>
void for_each_copied(const std::vector<TensorView>& parts, const TensorView& whole, Fn&& fn) {
  int64_t col = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].f32() != whole.f32() + col) fn(i, col);
    col += parts[i].shape[3];
  }
}

}  // namespace

Shape Concat::output_shape(const std::vector<Shape>& inputs) const {
  XTRAIN_CHECK(!inputs.empty(), "Concat {}: no inputs", name());
  int64_t channels = 0;
  for (const Shape& x : inputs) {
    check_nhwc(name(), x);
    XTRAIN_CHECK(x[0] == inputs[0][0] && x[1] == inputs[0][1] && x[2] == inputs[0][2],
                 "Concat {}: inputs {} and {} differ in batch or grid", name(), inputs[0].str(),
                 x.str());
    channels += x[3];
  }
  return Shape{inputs[0][0], inputs[0][1], inputs[0][2], channels};
}

void Concat::forward(const LayerCall& s) const {
  for_each_copied(s.inputs, s.output, [&](size_t i, int64_t col) {
    const TensorView& x = s.inputs[i];
    kernels::copy_columns(
        pixels(x.shape),
        {x.f32(), x.shape[3], 0, s.output.f32(), s.output.row_elements(), col, x.shape[3]}, s.ex);
  });
}

void Concat::backward(const LayerCall& s) const {
  for_each_copied(s.dinputs, s.doutput, [&](size_t i, int64_t col) {
    const TensorView& dx = s.dinputs[i];
    if (dx.empty()) return;
    kernels::copy_columns(
        pixels(dx.shape),
        {s.doutput.f32(), s.doutput.row_elements(), col, dx.f32(), dx.shape[3], 0, dx.shape[3]},
        s.ex);
  });
}

}  // namespace xtrain
