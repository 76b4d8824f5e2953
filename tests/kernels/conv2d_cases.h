// The Conv2d kernel tests' data: a shape's inputs, parameters and upstream gradient from a seed,
// and all three passes run by the fast kernels (in a precision) or the plain-loop reference.
// Shared by conv2d_kernel_test.cpp (float32) and conv2d_bf16_test.cpp.
#pragma once

#include <string>
#include <vector>

#include "lib/kernels/conv2d.h"
#include "lib/kernels/reference/conv2d.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain::testing {

using kernels::Conv2dShape;

inline std::string describe(const Conv2dShape& s) {
  return "x [" + std::to_string(s.n) + ", " + std::to_string(s.h) + ", " + std::to_string(s.w) +
         ", " + std::to_string(s.c_in) + "] -> " + std::to_string(s.c_out) + " channels, kernel " +
         std::to_string(s.kh) + "x" + std::to_string(s.kw) + " stride " + std::to_string(s.stride) +
         " pad " + std::to_string(s.pad_h) + "x" + std::to_string(s.pad_w);
}

// Inputs, parameters and an upstream gradient for one shape, from a seed.
struct ConvData {
  explicit ConvData(const Conv2dShape& s, uint32_t seed)
      : x(random_floats(size_t(s.n) * s.h * s.w * s.c_in, seed)),
        weight(random_floats(s.patch() * s.c_out, seed + 1)),
        bias(random_floats(s.c_out, seed + 2)),
        dy(random_floats(s.rows() * s.c_out, seed + 3)),
        workspace(kernels::conv2d_workspace_floats(s)) {}

  std::vector<float> x, weight, bias, dy, workspace;
};

// All three outputs of one fast or reference run. dweight and dbias start from `grad_prefill`
// values (the passes accumulate); y and dx start as NaN (the passes overwrite).
struct ConvOutputs {
  std::vector<float> y, dx, dweight, dbias;
};

inline ConvOutputs prefilled_outputs(const Conv2dShape& s) {
  ConvOutputs out;
  out.y = nans(s.rows() * s.c_out);
  out.dx = nans(size_t(s.n) * s.h * s.w * s.c_in);
  out.dweight = random_floats(s.patch() * s.c_out, 77);
  out.dbias = random_floats(s.c_out, 78);
  return out;
}

inline ConvOutputs run_fast(const Conv2dShape& s, ConvData& d, bool with_bias, const Exec& ex,
                            Precision precision = Precision::kFloat32) {
  ConvOutputs out = prefilled_outputs(s);
  const float* bias = with_bias ? d.bias.data() : nullptr;
  float* dbias = with_bias ? out.dbias.data() : nullptr;
  kernels::conv2d_forward(s, d.x.data(), d.weight.data(), bias, out.y.data(), d.workspace.data(),
                          ex, precision);
  kernels::conv2d_backward_data(s, d.dy.data(), d.weight.data(), out.dx.data(), d.workspace.data(),
                                ex, precision);
  kernels::conv2d_backward_weight(s, d.x.data(), d.dy.data(), out.dweight.data(), dbias,
                                  d.workspace.data(), ex, precision);
  return out;
}

inline ConvOutputs run_reference(const Conv2dShape& s, const ConvData& d, bool with_bias) {
  ConvOutputs out = prefilled_outputs(s);
  const float* bias = with_bias ? d.bias.data() : nullptr;
  float* dbias = with_bias ? out.dbias.data() : nullptr;
  kernels::reference::conv2d_forward(s, d.x.data(), d.weight.data(), bias, out.y.data());
  kernels::reference::conv2d_backward_data(s, d.dy.data(), d.weight.data(), out.dx.data());
  kernels::reference::conv2d_backward_weight(s, d.x.data(), d.dy.data(), out.dweight.data(), dbias);
  return out;
}

// Expects every output of a and b to hold the same bits.
inline void expect_outputs_bitwise_equal(const ConvOutputs& a, const ConvOutputs& b) {
  expect_bitwise_equal(a.y, b.y, "y");
  expect_bitwise_equal(a.dx, b.dx, "dx");
  expect_bitwise_equal(a.dweight, b.dweight, "dweight");
  expect_bitwise_equal(a.dbias, b.dbias, "dbias");
}

// The three passes one image at a time (y and dx concatenated, dweight accumulated in image
// order), with a workspace for one image: what a batch's passes must give when they work through
// it a chunk of images at a time.
inline ConvOutputs run_image_by_image(const Conv2dShape& s, const ConvData& d, const Exec& ex,
                                      Precision precision = Precision::kFloat32) {
  Conv2dShape one = s;
  one.n = 1;
  ConvOutputs out;
  out.dweight = prefilled_outputs(s).dweight;
  std::vector<float> workspace(kernels::conv2d_workspace_floats(one));
  const size_t x_image = size_t(s.h) * s.w * s.c_in, y_image = size_t(one.rows()) * s.c_out;
  for (int n = 0; n < s.n; ++n) {
    std::vector<float> y_n = nans(y_image), dx_n = nans(x_image);
    const float* x_n = d.x.data() + n * x_image;
    const float* dy_n = d.dy.data() + n * y_image;
    kernels::conv2d_forward(one, x_n, d.weight.data(), nullptr, y_n.data(), workspace.data(), ex,
                            precision);
    kernels::conv2d_backward_data(one, dy_n, d.weight.data(), dx_n.data(), workspace.data(), ex,
                                  precision);
    kernels::conv2d_backward_weight(one, x_n, dy_n, out.dweight.data(), nullptr, workspace.data(),
                                    ex, precision);
    out.y.insert(out.y.end(), y_n.begin(), y_n.end());
    out.dx.insert(out.dx.end(), dx_n.begin(), dx_n.end());
  }
  return out;
}

}  // namespace xtrain::testing
