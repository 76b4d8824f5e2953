// ReLU kernels over m rows of c floats: x and dx are dense [m, c]; the rows of y and of dy may be
// wider (y_stride, dy_stride), so that y is columns of a wider output (a part a concatenation
// holds in place, whose rebuilt copy for the backward is dense while its gradient stays in the
// concatenation's). y may alias x, and dx dy, when the rows are dense (in place).
#pragma once

#include <cstdint>

#include "lib/parallel/exec.h"

namespace xtrain::kernels {

struct ReLUShape {
  int64_t m, c;
  int64_t y_stride = 0;   // floats between the rows of y; 0: c
  int64_t dy_stride = 0;  // floats between the rows of dy; 0: c

  int64_t y_row() const { return y_stride > 0 ? y_stride : c; }
  int64_t dy_row() const { return dy_stride > 0 ? dy_stride : c; }
};

// y = max(x, 0)
void relu_forward(const ReLUShape& s, const float* x, float* y, const Exec& ex);

// dx = y > 0 ? dy : 0, from the forward's output y.
void relu_backward(const ReLUShape& s, const float* y, const float* dy, float* dx, const Exec& ex);

}  // namespace xtrain::kernels
