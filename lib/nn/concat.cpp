#include "lib/nn/concat.h"

#include "lib/kernels/copy_columns.h"
#include "lib/nn/nhwc.h"

namespace xtrain {
namespace {

int64_t pixels(const Shape& x) { return x[0] * x[1] * x[2]; }

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
  const int64_t width = s.output.shape[3];
  int64_t col = 0;
  for (const TensorView& x : s.inputs) {
    kernels::copy_columns(pixels(x.shape),
                          {x.data, x.shape[3], 0, s.output.data, width, col, x.shape[3]}, s.ex);
    col += x.shape[3];
  }
}

void Concat::backward(const LayerCall& s) const {
  const int64_t width = s.doutput.shape[3];
  int64_t col = 0;
  for (size_t i = 0; i < s.inputs.size(); ++i) {
    const int64_t channels = s.inputs[i].shape[3];
    const TensorView& dx = s.dinputs[i];
    if (!dx.empty()) {
      kernels::copy_columns(pixels(dx.shape),
                            {s.doutput.data, width, col, dx.data, channels, 0, channels}, s.ex);
    }
    col += channels;
  }
}

}  // namespace xtrain
