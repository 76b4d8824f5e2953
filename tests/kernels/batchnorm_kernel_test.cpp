// BatchNorm2d kernels: a hand-computed example, the reference twin on odd and ResNet-50 shapes
// (plain, with the fused ReLU or ReLU6, with the fused residual sum and ReLU), 1 vs 2 and 3 threads
// bitwise, the forward rebuilt from what it saved bitwise, the overwrite / accumulate contract of
// the backward, also with dx written over dy, and replicas that normalize as one batch (--sync_bn).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "lib/kernels/batchnorm.h"
#include "lib/kernels/reference/batchnorm.h"
#include "lib/parallel/mesh.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

// Exactly the scratch a kernel declares: an overrun is a heap overflow AddressSanitizer reports.
std::vector<float> workspace_for(const kernels::BatchNormShape& s) {
  return std::vector<float>(kernels::batchnorm_workspace_floats(s));
}

using kernels::Activation;
using kernels::BatchNormShape;
using testing::expect_bitwise_equal;
using testing::expect_close_to_reference;
using testing::nans;
using testing::random_floats;

constexpr float kRtol = 1e-4f;
constexpr float kEps = 1e-5f;
constexpr float kMomentum = 0.1f;

std::string describe(const BatchNormShape& s) {
  return "[M " + std::to_string(s.m) + ", C " + std::to_string(s.c) + "]";
}

// x around `offset` with spread `scale`; gamma in [0.5, 1.5), beta, dy and the residual in
// [-1, 1), running statistics away from the defaults so the momentum update is visible.
struct BatchNormData {
  BatchNormData(const BatchNormShape& s, uint32_t seed, float offset = 0.0f, float scale = 1.0f,
                bool with_residual = false)
      : x(random_floats(s.m * s.c, seed, offset - scale, offset + scale)),
        residual(with_residual ? random_floats(s.m * s.c, seed + 6) : std::vector<float>{}),
        gamma(random_floats(s.c, seed + 1, 0.5f, 1.5f)),
        beta(random_floats(s.c, seed + 2)),
        dy(random_floats(s.m * s.c, seed + 3)),
        running_mean(random_floats(s.c, seed + 4)),
        running_var(random_floats(s.c, seed + 5, 0.5f, 2.0f)) {}

  const float* residual_or_null() const { return residual.empty() ? nullptr : residual.data(); }

  std::vector<float> x, residual, gamma, beta, dy, running_mean, running_var;
};

// Everything the forwards and the backward write. y, y_again, y_eval, saved, dx and dresidual
// start as NaN (overwritten); dgamma and dbeta start from fixed values (they accumulate).
struct BatchNormOutputs {
  explicit BatchNormOutputs(const BatchNormShape& s, const BatchNormData& d)
      : y(nans(s.m * s.c)),
        y_again(nans(s.m * s.c)),
        y_eval(nans(s.m * s.c)),
        dx(nans(s.m * s.c)),
        dresidual(d.residual.empty() ? std::vector<float>{} : nans(s.m * s.c)),
        saved(nans(kernels::kBatchNormSavedRows * s.c)),
        running_mean(d.running_mean),
        running_var(d.running_var),
        dgamma(random_floats(s.c, 91)),
        dbeta(random_floats(s.c, 92)) {}

  // Row `row` of saved: 0 mean, 1 inv_std, 2 scale, 3 shift.
  std::vector<float> saved_row(int row) const {
    const size_t c = saved.size() / kernels::kBatchNormSavedRows;
    return std::vector<float>(saved.begin() + row * c, saved.begin() + (row + 1) * c);
  }
  float* dresidual_or_null() { return dresidual.empty() ? nullptr : dresidual.data(); }

  std::vector<float> y, y_again, y_eval, dx, dresidual, saved, running_mean, running_var, dgamma,
      dbeta;
};

std::vector<BFloat16> rounded(const std::vector<float>& v) {
  std::vector<BFloat16> out;
  for (float x : v) out.push_back(to_bfloat16(x));
  return out;
}

std::vector<float> widened(const std::vector<BFloat16>& v) {
  std::vector<float> out;
  for (BFloat16 x : v) out.push_back(to_float(x));
  return out;
}

// The kernels on d. With bf16_storage, as a bfloat16 plan stores them: x and the residual read
// from bfloat16 (d's values rounded), y, y_again and y_eval written in bfloat16 (o holds them
// widened back). The backward is handed y as BatchNorm2d hands it: only after a residual (the
// ReLU's mask then comes from y, else from x); mask_from_y hands it y always.
BatchNormOutputs run_fast(const BatchNormShape& s, const BatchNormData& d, const Exec& ex,
                          bool bf16_storage = false, bool mask_from_y = false) {
  const bool hand_y = mask_from_y || !d.residual.empty();
  BatchNormOutputs o(s, d);
  if (!bf16_storage) {
    kernels::batchnorm_forward_train(s, d.x.data(), d.residual_or_null(), d.gamma.data(),
                                     d.beta.data(), o.y.data(), o.saved.data(),
                                     o.running_mean.data(), o.running_var.data(), kMomentum,
                                     workspace_for(s).data(), ex);
    kernels::batchnorm_forward_again(s, d.x.data(), d.residual_or_null(), o.saved.data(),
                                     o.y_again.data(), ex);
    kernels::batchnorm_forward_eval(s, d.x.data(), d.residual_or_null(), d.gamma.data(),
                                    d.beta.data(), d.running_mean.data(), d.running_var.data(),
                                    o.y_eval.data(), workspace_for(s).data(), ex);
    kernels::batchnorm_backward(s, d.x.data(), hand_y ? o.y.data() : nullptr, d.dy.data(),
                                d.gamma.data(), o.saved.data(), o.dx.data(), o.dresidual_or_null(),
                                o.dgamma.data(), o.dbeta.data(), workspace_for(s).data(), ex);
    return o;
  }
  const std::vector<BFloat16> x = rounded(d.x), residual = rounded(d.residual);
  const ConstElements residual_in = d.residual.empty() ? ConstElements(nullptr) : residual.data();
  std::vector<BFloat16> y(o.y.size()), y_again(y.size()), y_eval(y.size());
  kernels::batchnorm_forward_train(s, x.data(), residual_in, d.gamma.data(), d.beta.data(),
                                   y.data(), o.saved.data(), o.running_mean.data(),
                                   o.running_var.data(), kMomentum, workspace_for(s).data(), ex);
  kernels::batchnorm_forward_again(s, x.data(), residual_in, o.saved.data(), y_again.data(), ex);
  kernels::batchnorm_forward_eval(s, x.data(), residual_in, d.gamma.data(), d.beta.data(),
                                  d.running_mean.data(), d.running_var.data(), y_eval.data(),
                                  workspace_for(s).data(), ex);
  // Gradients as their values: dy as y, dx as x, dresidual as the residual.
  const std::vector<BFloat16> dy = rounded(d.dy);
  std::vector<BFloat16> dx(o.dx.size()), dresidual(o.dresidual.size());
  kernels::batchnorm_backward(s, x.data(), hand_y ? ConstElements(y.data()) : nullptr, dy.data(),
                              d.gamma.data(), o.saved.data(), dx.data(),
                              d.residual.empty() ? Elements(nullptr) : dresidual.data(),
                              o.dgamma.data(), o.dbeta.data(), workspace_for(s).data(), ex);
  o.y = widened(y);
  o.y_again = widened(y_again);
  o.y_eval = widened(y_eval);
  o.dx = widened(dx);
  o.dresidual = widened(dresidual);
  return o;
}

void expect_outputs_bitwise_equal(const BatchNormOutputs& a, const BatchNormOutputs& b) {
  expect_bitwise_equal(a.y, b.y, "y");
  expect_bitwise_equal(a.y_again, b.y_again, "y_again");
  expect_bitwise_equal(a.saved, b.saved, "saved");
  expect_bitwise_equal(a.running_mean, b.running_mean, "running_mean");
  expect_bitwise_equal(a.running_var, b.running_var, "running_var");
  expect_bitwise_equal(a.y_eval, b.y_eval, "y_eval");
  expect_bitwise_equal(a.dx, b.dx, "dx");
  expect_bitwise_equal(a.dresidual, b.dresidual, "dresidual");
  expect_bitwise_equal(a.dgamma, b.dgamma, "dgamma");
  expect_bitwise_equal(a.dbeta, b.dbeta, "dbeta");
}

BatchNormOutputs run_reference(const BatchNormShape& s, const BatchNormData& d) {
  BatchNormOutputs o(s, d);
  kernels::reference::batchnorm_forward_train(
      s, d.x.data(), d.residual_or_null(), d.gamma.data(), d.beta.data(), o.y.data(),
      o.saved.data(), o.running_mean.data(), o.running_var.data(), kMomentum);
  kernels::reference::batchnorm_forward_again(s, d.x.data(), d.residual_or_null(), o.saved.data(),
                                              o.y_again.data());
  kernels::reference::batchnorm_forward_eval(s, d.x.data(), d.residual_or_null(), d.gamma.data(),
                                             d.beta.data(), d.running_mean.data(),
                                             d.running_var.data(), o.y_eval.data());
  kernels::reference::batchnorm_backward(s, d.x.data(), o.y.data(), d.dy.data(), d.gamma.data(),
                                         o.saved.data(), o.dx.data(), o.dresidual_or_null(),
                                         o.dgamma.data(), o.dbeta.data());
  return o;
}

void expect_matches_reference(const BatchNormShape& s, const BatchNormData& d) {
  const BatchNormOutputs fast = run_fast(s, d, Exec{});
  const BatchNormOutputs ref = run_reference(s, d);
  expect_close_to_reference(fast.y, ref.y, kRtol, "y");
  expect_close_to_reference(fast.y_again, ref.y_again, kRtol, "y_again");
  expect_close_to_reference(fast.saved_row(0), ref.saved_row(0), kRtol, "mean");
  expect_close_to_reference(fast.saved_row(1), ref.saved_row(1), kRtol, "inv_std");
  expect_close_to_reference(fast.saved_row(2), ref.saved_row(2), kRtol, "scale");
  expect_close_to_reference(fast.saved_row(3), ref.saved_row(3), kRtol, "shift");
  expect_close_to_reference(fast.running_mean, ref.running_mean, kRtol, "running_mean");
  expect_close_to_reference(fast.running_var, ref.running_var, kRtol, "running_var");
  expect_close_to_reference(fast.y_eval, ref.y_eval, kRtol, "y_eval");
  expect_close_to_reference(fast.dx, ref.dx, kRtol, "dx");
  expect_close_to_reference(fast.dresidual, ref.dresidual, kRtol, "dresidual");
  expect_close_to_reference(fast.dgamma, ref.dgamma, kRtol, "dgamma");
  expect_close_to_reference(fast.dbeta, ref.dbeta, kRtol, "dbeta");
}

void expect_matches_reference(const BatchNormShape& s, float offset = 0.0f, float scale = 1.0f,
                              bool with_residual = false) {
  SCOPED_TRACE(describe(s) + " x in " + std::to_string(offset) + " +- " + std::to_string(scale) +
               (with_residual ? " with a residual" : ""));
  expect_matches_reference(s, BatchNormData(s, 7, offset, scale, with_residual));
}

// One channel, x = {1, 2, 3, 4}: mean 2.5, biased variance 1.25, unbiased 5/3.
TEST(BatchNorm2dKernel, HandExampleTrainThenEval) {
  const BatchNormShape s{4, 1, kEps};
  const std::vector<float> x = {1, 2, 3, 4};
  const float gamma = 1.0f, beta = 0.0f;
  std::vector<float> saved = nans(kernels::kBatchNormSavedRows);  // mean, inv_std, scale, shift
  float running_mean = 0.0f, running_var = 1.0f;
  std::vector<float> y = nans(4);
  kernels::batchnorm_forward_train(s, x.data(), nullptr, &gamma, &beta, y.data(), saved.data(),
                                   &running_mean, &running_var, kMomentum, workspace_for(s).data(),
                                   Exec{});
  const double expected_inv_std = 1.0 / std::sqrt(1.25 + 1e-5);
  EXPECT_FLOAT_EQ(saved[0], 2.5f);
  EXPECT_NEAR(saved[1], expected_inv_std, 1e-6);
  EXPECT_NEAR(saved[2], expected_inv_std, 1e-6);         // scale = gamma * inv_std
  EXPECT_NEAR(saved[3], -2.5 * expected_inv_std, 1e-6);  // shift = beta - mean * scale
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(y[i], (x[i] - 2.5) * expected_inv_std, 1e-6) << i;
  EXPECT_NEAR(running_mean, 0.25, 1e-7);              // 0.9 * 0 + 0.1 * 2.5
  EXPECT_NEAR(running_var, 0.9 + 0.1 * 5 / 3, 1e-6);  // unbiased: 1.25 * 4 / 3 = 5 / 3

  // Eval normalizes with the running statistics, not the batch's.
  std::vector<float> y_eval = nans(4);
  kernels::batchnorm_forward_eval(s, x.data(), nullptr, &gamma, &beta, &running_mean, &running_var,
                                  y_eval.data(), workspace_for(s).data(), Exec{});
  const double eval_inv_std = 1.0 / std::sqrt(0.9 + 0.1 * 5.0 / 3.0 + 1e-5);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(y_eval[i], (x[i] - 0.25) * eval_inv_std, 1e-6) << i;
}

// gamma and beta scale and shift the normalized output; the same 4 values laid out as a 2x2
// image of one sample give the same statistics.
TEST(BatchNorm2dKernel, HandExampleGammaBeta) {
  const BatchNormShape s{2 * 2, 1, kEps};  // N=1, H=W=2
  const std::vector<float> x = {1, 2, 3, 4};
  const float gamma = 2.0f, beta = -3.0f;
  float saved[kernels::kBatchNormSavedRows], running_mean = 0.0f, running_var = 1.0f;
  std::vector<float> y(4);
  kernels::batchnorm_forward_train(s, x.data(), nullptr, &gamma, &beta, y.data(), saved,
                                   &running_mean, &running_var, kMomentum, workspace_for(s).data(),
                                   Exec{});
  const double istd = 1.0 / std::sqrt(1.25 + 1e-5);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(y[i], 2.0 * (x[i] - 2.5) * istd - 3.0, 1e-5) << i;
}

// dy = xhat gives dx = 0 (a shift along the normalized output is fully absorbed by gamma);
// dgamma = sum(xhat^2) = M, dbeta = sum(xhat) = 0, added to what was there.
TEST(BatchNorm2dKernel, HandExampleBackward) {
  const BatchNormShape s{4, 1, 0.0f};
  const std::vector<float> x = {1, 2, 3, 4};
  const float gamma = 1.0f, beta = 0.0f;
  float saved[kernels::kBatchNormSavedRows], running_mean = 0.0f, running_var = 1.0f;
  std::vector<float> xhat(4);
  kernels::batchnorm_forward_train(s, x.data(), nullptr, &gamma, &beta, xhat.data(), saved,
                                   &running_mean, &running_var, kMomentum, workspace_for(s).data(),
                                   Exec{});
  std::vector<float> dx = nans(4);
  float dgamma = 10.0f, dbeta = 20.0f;
  kernels::batchnorm_backward(s, x.data(), xhat.data(), xhat.data(), &gamma, saved, dx.data(),
                              nullptr, &dgamma, &dbeta, workspace_for(s).data(), Exec{});
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(dx[i], 0.0f, 1e-6) << i;
  EXPECT_NEAR(dgamma, 10.0f + 4.0f, 1e-5);
  EXPECT_NEAR(dbeta, 20.0f, 1e-6);

  // dy constant: a shift of the output is absorbed by beta, dx = 0 again; dbeta += 4 * 0.5.
  const std::vector<float> dy(4, 0.5f);
  kernels::batchnorm_backward(s, x.data(), xhat.data(), dy.data(), &gamma, saved, dx.data(),
                              nullptr, &dgamma, &dbeta, workspace_for(s).data(), Exec{});
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(dx[i], 0.0f, 1e-6) << i;
  EXPECT_NEAR(dbeta, 22.0f, 1e-6);
}

TEST(BatchNorm2dKernel, MatchesReferenceOnOddShapes) {
  for (int c : {1, 3, 13}) {
    expect_matches_reference(BatchNormShape{3 * 5 * 7, c, kEps});  // N=3, 5x7
  }
  expect_matches_reference(BatchNormShape{2, 3, kEps});  // two rows: the smallest unbiased var
}

// bn1 of layer1 (56x56x64) and bn3 of layer4 (7x7x2048), batch 1.
TEST(BatchNorm2dKernel, MatchesReferenceOnResNet50Shapes) {
  expect_matches_reference(BatchNormShape{56 * 56, 64, kEps});
  expect_matches_reference(BatchNormShape{7 * 7, 2048, kEps});
}

// With the fused ReLU (Activation::kReLU), on odd and ResNet shapes; at batch 1 and
// threads 1 / 2 the same bits as well.
TEST(BatchNorm2dKernel, FusedReluMatchesReference) {
  for (const BatchNormShape& s : {BatchNormShape{3 * 5 * 7, 13, kEps, Activation::kReLU},
                                  BatchNormShape{56 * 56, 64, kEps, Activation::kReLU},
                                  BatchNormShape{4 * 28 * 28 + 3, 16, kEps, Activation::kReLU}}) {
    expect_matches_reference(s);
    const BatchNormData d(s, 5);
    const BatchNormOutputs fused = run_fast(s, d, Exec{});
    int clamped = 0;
    for (float y : fused.y) clamped += y == 0.0f;
    EXPECT_GT(clamped, s.m * s.c / 4) << describe(s) << ": the ReLU must clamp about half";
    testing::PoolExec two(2);
    const BatchNormOutputs threaded = run_fast(s, d, two.exec());
    expect_bitwise_equal(fused.dx, threaded.dx, "dx");
    expect_bitwise_equal(fused.dgamma, threaded.dgamma, "dgamma");
  }
}

// The ReLU clamped above at 6 (Activation::kReLU6, torch.nn.ReLU6), one channel,
// gamma 8, beta 2: y = 8 * xhat + 2 for xhat = (x - 2.5) / sqrt(1.25) = +-1.342, +-0.447 is
// -8.73, -1.58, 5.58 and 12.73, so y = {0, 0, 5.58, 6}. Only the third output passes its
// gradient, as torch's hardtanh_backward: dbeta += 1, dgamma += xhat[2].
TEST(BatchNorm2dKernel, HandExampleRelu6) {
  const BatchNormShape s{4, 1, kEps, Activation::kReLU6};
  const std::vector<float> x = {1, 2, 3, 4};
  const float gamma = 8.0f, beta = 2.0f;
  float saved[kernels::kBatchNormSavedRows], running_mean = 0.0f, running_var = 1.0f;
  std::vector<float> y = nans(4);
  kernels::batchnorm_forward_train(s, x.data(), nullptr, &gamma, &beta, y.data(), saved,
                                   &running_mean, &running_var, kMomentum, workspace_for(s).data(),
                                   Exec{});
  const double istd = 1.0 / std::sqrt(1.25 + 1e-5);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_NEAR(y[2], 8.0 * 0.5 * istd + 2.0, 1e-5);
  EXPECT_EQ(y[3], 6.0f);
  const std::vector<float> dy(4, 1.0f);
  std::vector<float> dx = nans(4);
  float dgamma = 0.0f, dbeta = 0.0f;
  kernels::batchnorm_backward(s, x.data(), nullptr, dy.data(), &gamma, saved, dx.data(), nullptr,
                              &dgamma, &dbeta, workspace_for(s).data(), Exec{});
  EXPECT_NEAR(dbeta, 1.0f, 1e-6);
  EXPECT_NEAR(dgamma, 0.5 * istd, 1e-6);
  // g = {0, 0, 1, 0}: dx = gamma * istd * (g - mean(g) - xhat * mean(g * xhat)).
  for (int i = 0; i < 4; ++i) {
    const double xhat = (x[i] - 2.5) * istd;
    const double expected = 8.0 * istd * ((i == 2 ? 1.0 : 0.0) - 0.25 - xhat * 0.5 * istd / 4);
    EXPECT_NEAR(dx[i], expected, 1e-5) << i;
  }
}

// The ReLU6 on odd and MobileNetV2 shapes, with gamma and beta widened so that many outputs
// clamp at 6 as well as at 0. At threads 1 and 2 the same bits.
TEST(BatchNorm2dKernel, FusedRelu6MatchesReference) {
  for (const BatchNormShape& s : {BatchNormShape{3 * 5 * 7, 13, kEps, Activation::kReLU6},
                                  BatchNormShape{56 * 56, 144, kEps, Activation::kReLU6},
                                  BatchNormShape{7 * 7, 960, kEps, Activation::kReLU6}}) {
    SCOPED_TRACE(describe(s));
    BatchNormData d(s, 5);
    for (float& g : d.gamma) g *= 6.0f;
    for (float& b : d.beta) b *= 3.0f;
    expect_matches_reference(s, d);
    const BatchNormOutputs fused = run_fast(s, d, Exec{});
    const auto at = [&](float v) { return std::count(fused.y.begin(), fused.y.end(), v); };
    EXPECT_GT(at(6.0f), s.m * s.c / 10) << "the ReLU6 must clamp some outputs at 6";
    EXPECT_GT(at(0.0f), s.m * s.c / 4) << "and about half at 0";
    testing::PoolExec two(2);
    const BatchNormOutputs threaded = run_fast(s, d, two.exec());
    expect_outputs_bitwise_equal(fused, threaded);
  }
}

// fused (run_fast(s, d) on one thread) again on two threads, and from bfloat16 storage: the
// float32 kernels' bits of the same (rounded) values, rounded once where stored.
void expect_same_bits_on_two_threads_and_from_bfloat16(const BatchNormShape& s,
                                                       const BatchNormData& d,
                                                       const BatchNormOutputs& fused,
                                                       testing::PoolExec& two) {
  expect_outputs_bitwise_equal(fused, run_fast(s, d, two.exec()));
  BatchNormData r = d;
  r.x = widened(rounded(d.x));
  r.dy = widened(rounded(d.dy));
  BatchNormOutputs expected = run_fast(s, r, Exec{});
  for (std::vector<float>* v : {&expected.y, &expected.y_again, &expected.y_eval, &expected.dx}) {
    *v = widened(rounded(*v));
  }
  expect_outputs_bitwise_equal(expected, run_fast(s, r, two.exec(), /*bf16_storage=*/true));
}

// The Hardswish (Activation::kHardswish, torch.nn.Hardswish, MobileNetV3's) on odd and
// MobileNetV3 shapes, gamma widened so that outputs fall on all three pieces: below -3 (0),
// between (x * (x + 3) / 6) and above 3 (x). Its backward rebuilds the value the Hardswish saw
// from x, as the reference does. At threads 1 and 2 the same bits; from bfloat16 storage, the
// float32 kernels' bits of the same values, rounded once where stored.
TEST(BatchNorm2dKernel, FusedHardswishMatchesReferenceOnOneAndTwoThreads) {
  testing::PoolExec two(2);
  for (const BatchNormShape& s : {BatchNormShape{3 * 5 * 7, 13, kEps, Activation::kHardswish},
                                  BatchNormShape{28 * 28, 72, kEps, Activation::kHardswish},
                                  BatchNormShape{7 * 7, 576, kEps, Activation::kHardswish}}) {
    SCOPED_TRACE(describe(s));
    BatchNormData d(s, 5);
    for (float& g : d.gamma) g *= 4.0f;
    expect_matches_reference(s, d);
    const BatchNormOutputs fused = run_fast(s, d, Exec{});
    const auto count = [&](auto&& pred) {
      return std::count_if(fused.y.begin(), fused.y.end(), pred);
    };
    EXPECT_GT(count([](float v) { return v == 0.0f; }), s.m * s.c / 20) << "below -3";
    EXPECT_GT(count([](float v) { return v > 3.0f; }), s.m * s.c / 20) << "above 3";
    EXPECT_GT(count([](float v) { return v < 0.0f; }), s.m * s.c / 20) << "between";
    expect_same_bits_on_two_threads_and_from_bfloat16(s, d, fused, two);
  }
}

// The SiLU (Activation::kSiLU, torch.nn.SiLU, EfficientNet's) on odd and EfficientNet shapes,
// gamma widened so that outputs reach both the negative dip and the nearly linear part. Its
// backward rebuilds the value the SiLU saw from x, as the reference does. At threads 1 and 2 the
// same bits; from bfloat16 storage, the float32 kernels' bits of the same values, rounded once
// where stored.
TEST(BatchNorm2dKernel, FusedSiluMatchesReferenceOnOneAndTwoThreads) {
  testing::PoolExec two(2);
  for (const BatchNormShape& s : {BatchNormShape{3 * 5 * 7, 13, kEps, Activation::kSiLU},
                                  BatchNormShape{28 * 28, 144, kEps, Activation::kSiLU},
                                  BatchNormShape{7 * 7, 1152, kEps, Activation::kSiLU}}) {
    SCOPED_TRACE(describe(s));
    BatchNormData d(s, 5);
    for (float& g : d.gamma) g *= 4.0f;
    expect_matches_reference(s, d);
    const BatchNormOutputs fused = run_fast(s, d, Exec{});
    const auto count = [&](auto&& pred) {
      return std::count_if(fused.y.begin(), fused.y.end(), pred);
    };
    EXPECT_GT(count([](float v) { return v < -0.1f; }), s.m * s.c / 20) << "the dip";
    EXPECT_GT(count([](float v) { return v > 3.0f; }), s.m * s.c / 20) << "nearly linear";
    expect_same_bits_on_two_threads_and_from_bfloat16(s, d, fused, two);
  }
}

// Without a residual the backward recomputes the ReLU's mask from x (x * scale + shift > 0)
// instead of reading y: the same bits as the mask read from y, in float32 and from bfloat16
// storage, on shapes with a partial last chunk and rows not a multiple of 4.
TEST(BatchNorm2dKernel, ReluMaskFromTheInputIsTheOutputsBitwise) {
  for (bool bf16 : {false, true}) {
    for (const BatchNormShape& s : {BatchNormShape{3 * 5 * 7, 13, kEps, Activation::kReLU},
                                    BatchNormShape{4 * 28 * 28 + 3, 16, kEps, Activation::kReLU},
                                    BatchNormShape{2 * 7 * 7, 2048, kEps, Activation::kReLU}}) {
      SCOPED_TRACE(describe(s) + (bf16 ? " bfloat16" : " float32"));
      const BatchNormData d(s, 17, 0.2f, 1.5f);
      const BatchNormOutputs from_x = run_fast(s, d, Exec{}, bf16);
      const BatchNormOutputs from_y = run_fast(s, d, Exec{}, bf16, /*mask_from_y=*/true);
      expect_bitwise_equal(from_x.dx, from_y.dx, "dx");
      expect_bitwise_equal(from_x.dgamma, from_y.dgamma, "dgamma");
      expect_bitwise_equal(from_x.dbeta, from_y.dbeta, "dbeta");
    }
  }
}

// Activations whose mean is large next to their spread (as after a conv without centering):
// the variance must not lose its digits to cancellation.
TEST(BatchNorm2dKernel, MatchesReferenceWithLargeMean) {
  expect_matches_reference(BatchNormShape{3 * 5 * 7, 13, kEps}, /*offset=*/100.0f,
                           /*scale=*/0.5f);
  expect_matches_reference(BatchNormShape{28 * 28, 16, kEps}, /*offset=*/-30.0f, /*scale=*/0.1f);
}

// dx may be null (skipped); dgamma and dbeta are still accumulated exactly as with dx.
TEST(BatchNorm2dKernel, BackwardWithoutDxStillAccumulatesParameterGradients) {
  const BatchNormShape s{3 * 5 * 7, 13, kEps};
  const BatchNormData d(s, 3);
  const BatchNormOutputs with_dx = run_fast(s, d, Exec{});
  std::vector<float> dgamma = random_floats(s.c, 91), dbeta = random_floats(s.c, 92);
  kernels::batchnorm_backward(s, d.x.data(), with_dx.y.data(), d.dy.data(), d.gamma.data(),
                              with_dx.saved.data(), nullptr, nullptr, dgamma.data(), dbeta.data(),
                              workspace_for(s).data(), Exec{});
  expect_bitwise_equal(dgamma, with_dx.dgamma, "dgamma");
  expect_bitwise_equal(dbeta, with_dx.dbeta, "dbeta");
}

// The fused residual sum and ReLU (a ResNet block's last BatchNorm): y = max(bn(x) + residual, 0)
// and dresidual = dy masked by y > 0, on odd and ResNet-50 shapes; without dx, dresidual is
// still written, with the same bits.
TEST(BatchNorm2dKernel, FusedResidualAndReluMatchReference) {
  for (const BatchNormShape& s : {BatchNormShape{3 * 5 * 7, 13, kEps, Activation::kReLU},
                                  BatchNormShape{56 * 56, 256, kEps, Activation::kReLU},
                                  BatchNormShape{7 * 7, 2048, kEps, Activation::kReLU},
                                  BatchNormShape{4 * 28 * 28 + 3, 16, kEps, Activation::kReLU}}) {
    expect_matches_reference(s, 0.0f, 1.0f, /*with_residual=*/true);
    const BatchNormData d(s, 9, 0.0f, 1.0f, /*with_residual=*/true);
    const BatchNormOutputs o = run_fast(s, d, Exec{});
    for (size_t i = 0; i < o.y.size(); ++i) {
      ASSERT_EQ(o.dresidual[i], o.y[i] > 0.0f ? d.dy[i] : 0.0f) << describe(s) << " at " << i;
    }
    std::vector<float> dresidual = nans(s.m * s.c), dgamma = random_floats(s.c, 91),
                       dbeta = random_floats(s.c, 92);
    kernels::batchnorm_backward(s, d.x.data(), o.y.data(), d.dy.data(), d.gamma.data(),
                                o.saved.data(), nullptr, dresidual.data(), dgamma.data(),
                                dbeta.data(), workspace_for(s).data(), Exec{});
    expect_bitwise_equal(dresidual, o.dresidual, "dresidual without dx");
    expect_bitwise_equal(dgamma, o.dgamma, "dgamma without dx");
  }
}

// A training plan rebuilds y from x (and the residual) and what the forward saved instead of
// keeping it: the same bits, for every fusion and thread count.
TEST(BatchNorm2dKernel, ForwardAgainRebuildsTheTrainingOutputBitwise) {
  testing::PoolExec two(2);
  for (bool relu : {false, true}) {
    for (bool with_residual : {false, true}) {
      const BatchNormShape s{4 * 28 * 28 + 3, 16, kEps,
                             relu ? Activation::kReLU : Activation::kNone};
      SCOPED_TRACE(describe(s) + (relu ? " relu" : "") + (with_residual ? " residual" : ""));
      const BatchNormData d(s, 21, 0.3f, 2.0f, with_residual);
      for (Exec ex : {Exec{}, two.exec()}) {
        const BatchNormOutputs o = run_fast(s, d, ex);
        expect_bitwise_equal(o.y_again, o.y, "y rebuilt");
      }
    }
  }
}

// Reductions split fixed chunks of rows over the threads, element-wise passes split rows; every
// output, including the running statistics, keeps its bits with 1, 2 or 3 threads. The shapes
// include resnet20's first stage (16 channels) with a partial last chunk and a row count that is
// not a multiple of 4, and one chunk only (7x7x2048, 3x5x7x13), and the fused residual sum.
TEST(BatchNorm2dKernel, OneTwoAndThreeThreadsAreBitwiseEqual) {
  testing::PoolExec two(2), three(3);
  for (const BatchNormShape& s :
       {BatchNormShape{56 * 56, 64, kEps}, BatchNormShape{7 * 7, 2048, kEps},
        BatchNormShape{3 * 5 * 7, 13, kEps}, BatchNormShape{4 * 28 * 28 + 3, 16, kEps},
        BatchNormShape{4 * 28 * 28 + 3, 16, kEps, Activation::kReLU}}) {
    // The last shape with the fused residual sum and ReLU.
    const bool with_residual = s.activation == Activation::kReLU;
    SCOPED_TRACE(describe(s) + (with_residual ? " with a residual" : ""));
    const BatchNormData d(s, 17, 0.0f, 1.0f, with_residual);
    const BatchNormOutputs a = run_fast(s, d, Exec{});
    for (Exec ex : {two.exec(), three.exec()}) {
      SCOPED_TRACE(std::to_string(ex.num_threads()) + " threads");
      const BatchNormOutputs b = run_fast(s, d, ex);
      expect_outputs_bitwise_equal(a, b);
    }
  }
}

// A bfloat16 plan stores BatchNorm's inputs, residuals and outputs in bfloat16, and their
// gradients: reading them so gives every output the bits the same values give as floats (they
// are converted exactly), and a bfloat16 y, dx or dresidual is the float32 one rounded, fused or
// not, on 1 or 2 threads.
TEST(BatchNorm2dKernel, BFloat16StorageGivesTheBitsOfItsFloatValues) {
  testing::PoolExec two(2);
  for (bool relu : {false, true}) {
    const BatchNormShape s{2 * 28 * 28 + 3, 48, kEps, relu ? Activation::kReLU : Activation::kNone};
    SCOPED_TRACE(describe(s) + (relu ? " relu, residual" : ""));
    BatchNormData d(s, 23, 0.5f, 2.0f, /*with_residual=*/relu);
    d.x = widened(rounded(d.x));
    d.residual = widened(rounded(d.residual));
    d.dy = widened(rounded(d.dy));
    for (Exec ex : {Exec{}, two.exec()}) {
      BatchNormOutputs a = run_fast(s, d, ex);
      for (std::vector<float>* y : {&a.y, &a.y_again, &a.y_eval, &a.dx, &a.dresidual}) {
        *y = widened(rounded(*y));
      }
      expect_outputs_bitwise_equal(a, run_fast(s, d, ex, /*bf16_storage=*/true));
    }
  }
}

template <typename T>
std::vector<T> stored(const std::vector<float>& v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else {
    return rounded(v);
  }
}
std::vector<float> widened(const std::vector<float>& v) { return v; }

// The backward writing dx over dy (one buffer: a plan gives them one when their types agree, see
// BatchNorm2d::backward_in_place) gives the bits it gives into a buffer of its own: x, y, dy and
// dx stored as T, the residual's gradient as R.
template <typename T, typename R>
void expect_dx_over_dy_bitwise(const BatchNormShape& s, const BatchNormData& d, const Exec& ex) {
  const BatchNormOutputs forward = run_fast(s, d, ex);  // y, saved
  const std::vector<T> x = stored<T>(d.x), y = stored<T>(forward.y), dy = stored<T>(d.dy);
  const bool residual = !d.residual.empty();
  struct Gradients {
    std::vector<R> dresidual;
    std::vector<float> dgamma, dbeta;
  };
  auto backward = [&](const T* dy_in, T* dx, Gradients& g) {
    g = {std::vector<R>(dy.size()), random_floats(s.c, 91), random_floats(s.c, 92)};
    kernels::batchnorm_backward(s, x.data(), residual ? ConstElements(y.data()) : nullptr, dy_in,
                                d.gamma.data(), forward.saved.data(), dx,
                                residual ? Elements(g.dresidual.data()) : nullptr, g.dgamma.data(),
                                g.dbeta.data(), workspace_for(s).data(), ex);
  };
  std::vector<T> dx(dy.size());
  Gradients own, shared;
  backward(dy.data(), dx.data(), own);
  std::vector<T> dy_then_dx = dy;
  backward(dy_then_dx.data(), dy_then_dx.data(), shared);
  expect_bitwise_equal(widened(dy_then_dx), widened(dx), "dx");
  expect_bitwise_equal(widened(shared.dresidual), widened(own.dresidual), "dresidual");
  expect_bitwise_equal(shared.dgamma, own.dgamma, "dgamma");
  expect_bitwise_equal(shared.dbeta, own.dbeta, "dbeta");
}

// Every mask (none, from x, from y after a residual), float32 and bfloat16 storage, the residual's
// gradient of either type (a bfloat16 one beside a float32 dy makes dx read dy again), 1 and 2
// threads.
TEST(BatchNorm2dKernel, DxWrittenOverDyGivesTheSameBits) {
  testing::PoolExec two(2);
  for (auto [relu, residual] : {std::pair{false, false}, {true, false}, {true, true}}) {
    const BatchNormShape s{2 * 28 * 28 + 3, 48, kEps, relu ? Activation::kReLU : Activation::kNone};
    const BatchNormData d(s, 33, 0.5f, 2.0f, residual);
    for (Exec ex : {Exec{}, two.exec()}) {
      SCOPED_TRACE(describe(s) + (relu ? " relu" : "") + (residual ? " residual" : "") + ", " +
                   std::to_string(ex.num_threads()) + " threads");
      expect_dx_over_dy_bitwise<float, float>(s, d, ex);
      expect_dx_over_dy_bitwise<BFloat16, BFloat16>(s, d, ex);
      expect_dx_over_dy_bitwise<float, BFloat16>(s, d, ex);
      expect_dx_over_dy_bitwise<BFloat16, float>(s, d, ex);
    }
  }
}

// After a residual, the backward writes g into dresidual while it sums, and reads it back for dx,
// when dresidual holds g exactly (float32, or dy's bfloat16); a bfloat16 dresidual beside a
// float32 dy rounds g, so dx then recomputes g from y and dy. Either way dx, dgamma and dbeta
// have the same bits whatever dresidual's storage, and dresidual is g, rounded where stored so;
// on 1 and 2 threads, with rows not a multiple of 4.
TEST(BatchNorm2dKernel, ResidualGradientStorageChangesNoOtherOutput) {
  testing::PoolExec two(2);
  const BatchNormShape s{2 * 28 * 28 + 3, 48, kEps, Activation::kReLU};
  BatchNormData d(s, 27, 0.5f, 2.0f, /*with_residual=*/true);
  const std::vector<BFloat16> dy_bf16 = rounded(d.dy);
  for (Exec ex : {Exec{}, two.exec()}) {
    const BatchNormOutputs o = run_fast(s, d, ex);  // y, saved: the forward's
    // dy in float32, then in bfloat16 (y with it: a gradient has its value's type).
    const std::vector<BFloat16> y_bf16 = rounded(o.y);
    for (bool dy_in_bf16 : {false, true}) {
      SCOPED_TRACE(std::string(dy_in_bf16 ? "bfloat16" : "float32") + " dy, " +
                   std::to_string(ex.num_threads()) + " threads");
      const ConstElements y = dy_in_bf16 ? ConstElements(y_bf16.data()) : o.y.data();
      const ConstElements dy = dy_in_bf16 ? ConstElements(dy_bf16.data()) : d.dy.data();
      auto backward = [&](Elements dresidual, std::vector<float>& dx, std::vector<float>& dgamma,
                          std::vector<float>& dbeta) {
        kernels::batchnorm_backward(s, d.x.data(), y, dy, d.gamma.data(), o.saved.data(), dx.data(),
                                    dresidual, dgamma.data(), dbeta.data(), workspace_for(s).data(),
                                    ex);
      };
      std::vector<float> dx = nans(s.m * s.c), dres = nans(s.m * s.c),
                         dgamma = random_floats(s.c, 91), dbeta = random_floats(s.c, 92);
      backward(dres.data(), dx, dgamma, dbeta);
      std::vector<float> dx2 = nans(s.m * s.c), dgamma2 = random_floats(s.c, 91),
                         dbeta2 = random_floats(s.c, 92);
      std::vector<BFloat16> dres_bf16(s.m * s.c);
      backward(dres_bf16.data(), dx2, dgamma2, dbeta2);
      expect_bitwise_equal(dx2, dx, "dx");
      expect_bitwise_equal(dgamma2, dgamma, "dgamma");
      expect_bitwise_equal(dbeta2, dbeta, "dbeta");
      expect_bitwise_equal(widened(dres_bf16), widened(rounded(dres)), "dresidual");
      const std::vector<float> y_values = dy_in_bf16 ? widened(y_bf16) : o.y;
      const std::vector<float> dy_values = dy_in_bf16 ? widened(dy_bf16) : d.dy;
      for (size_t i = 0; i < dres.size(); ++i) {
        ASSERT_EQ(dres[i], y_values[i] > 0.0f ? dy_values[i] : 0.0f) << "at " << i;
      }
    }
  }
}

// y and dy as columns [first, first + C) of wider rows (a BatchNorm over a concatenation, one
// part at a time): the same bits as with dense rows in every output, and the other columns of y
// untouched, with and without the fused ReLU.
TEST(BatchNorm2dKernel, ColumnsOfAWiderOutputHoldTheDenseOutputsBitwise) {
  constexpr int kWidth = 13, kFirst = 3;
  constexpr float kUntouched = 7.0f;
  for (bool relu : {false, true}) {
    const BatchNormShape dense{4 * 7 * 7 + 3, 5, kEps,
                               relu ? Activation::kReLU : Activation::kNone};
    BatchNormShape wide = dense;
    wide.y_stride = wide.dy_stride = kWidth;
    SCOPED_TRACE(describe(dense) + (relu ? " relu" : ""));
    const BatchNormData d(dense, 31, 0.2f, 1.5f);
    const BatchNormOutputs expected = run_fast(dense, d, Exec{});
    // The wide dy holds d.dy in its columns, other values around them.
    std::vector<float> wide_dy = random_floats(dense.m * kWidth, 32);
    std::vector<float> y(dense.m * kWidth, kUntouched), y_again = y, y_eval = y;
    for (int64_t r = 0; r < dense.m; ++r) {
      std::copy_n(d.dy.begin() + r * dense.c, dense.c, wide_dy.begin() + r * kWidth + kFirst);
    }
    BatchNormOutputs o(dense, d);
    kernels::batchnorm_forward_train(
        wide, d.x.data(), nullptr, d.gamma.data(), d.beta.data(), y.data() + kFirst, o.saved.data(),
        o.running_mean.data(), o.running_var.data(), kMomentum, workspace_for(wide).data(), Exec{});
    kernels::batchnorm_forward_again(wide, d.x.data(), nullptr, o.saved.data(),
                                     y_again.data() + kFirst, Exec{});
    kernels::batchnorm_forward_eval(wide, d.x.data(), nullptr, d.gamma.data(), d.beta.data(),
                                    d.running_mean.data(), d.running_var.data(),
                                    y_eval.data() + kFirst, workspace_for(wide).data(), Exec{});
    kernels::batchnorm_backward(wide, d.x.data(), y.data() + kFirst, wide_dy.data() + kFirst,
                                d.gamma.data(), o.saved.data(), o.dx.data(), nullptr,
                                o.dgamma.data(), o.dbeta.data(), workspace_for(wide).data(),
                                Exec{});
    const auto columns = [&](const std::vector<float>& rows, int first, int count) {
      std::vector<float> out;
      for (int64_t r = 0; r < dense.m; ++r) {
        out.insert(out.end(), rows.begin() + r * kWidth + first,
                   rows.begin() + r * kWidth + first + count);
      }
      return out;
    };
    expect_bitwise_equal(columns(y, kFirst, dense.c), expected.y, "y");
    expect_bitwise_equal(columns(y_again, kFirst, dense.c), expected.y_again, "y_again");
    expect_bitwise_equal(columns(y_eval, kFirst, dense.c), expected.y_eval, "y_eval");
    for (const std::vector<float>* rows : {&y, &y_again, &y_eval}) {
      const std::vector<float> before = columns(*rows, 0, kFirst);
      const std::vector<float> after = columns(*rows, kFirst + dense.c, kWidth - kFirst - dense.c);
      for (float v : before) ASSERT_EQ(v, kUntouched);
      for (float v : after) ASSERT_EQ(v, kUntouched);
    }
    expect_bitwise_equal(o.saved, expected.saved, "saved");
    expect_bitwise_equal(o.running_mean, expected.running_mean, "running_mean");
    expect_bitwise_equal(o.running_var, expected.running_var, "running_var");
    expect_bitwise_equal(o.dx, expected.dx, "dx");
    expect_bitwise_equal(o.dgamma, expected.dgamma, "dgamma");
    expect_bitwise_equal(o.dbeta, expected.dbeta, "dbeta");
  }
}

// Rows [first, first + m) of d's x, residual and dy; the per-channel values as they are.
BatchNormData rows_of(const BatchNormData& d, int c, int64_t first, int64_t m) {
  BatchNormData part = d;
  for (std::vector<float>* rows : {&part.x, &part.residual, &part.dy}) {
    if (rows->empty()) continue;
    *rows = std::vector<float>(rows->begin() + first * c, rows->begin() + (first + m) * c);
  }
  return part;
}

// --sync_bn: replicas that each hold a part of one batch normalize with the whole batch's
// statistics (a block's last BatchNorm: residual sum and ReLU fused). Each replica's y, dx and
// dresidual are the whole batch's rows, every replica saves and keeps the same statistics, and the
// replicas' dgamma and dbeta (each its own, as the all-reduce expects) add up to the batch's.
TEST(BatchNorm2dKernel, ReplicasOfOneBatchNormalizeAsTheWholeBatch) {
  constexpr int kReplicas = 3;
  BatchNormShape part{2 * 5 * 7, 19, kEps};
  part.activation = Activation::kReLU;
  BatchNormShape whole = part;
  whole.m = kReplicas * part.m;
  const BatchNormData d(whole, 11, 0.5f, 2.0f, /*with_residual=*/true);
  const BatchNormOutputs expected = run_fast(whole, d, Exec{});
  std::vector<BatchNormOutputs> parts(kReplicas, BatchNormOutputs(part, rows_of(d, part.c, 0, 1)));
  Mesh mesh(kReplicas);
  mesh.run([&](int rank) {
    Exec ex;
    ex.batch_replicas = &mesh.all_reduce();
    ex.replica_rank = rank;
    parts[rank] = run_fast(part, rows_of(d, part.c, rank * part.m, part.m), ex);
  });
  std::vector<float> dgamma_sum(part.c, 0.0f), dbeta_sum(part.c, 0.0f);
  for (int rank = 0; rank < kReplicas; ++rank) {
    SCOPED_TRACE("replica " + std::to_string(rank));
    const BatchNormOutputs& o = parts[rank];
    const auto rows = [&](const std::vector<float>& v) {
      return std::vector<float>(v.begin() + rank * part.m * part.c,
                                v.begin() + (rank + 1) * part.m * part.c);
    };
    expect_close_to_reference(o.y, rows(expected.y), kRtol, "y");
    expect_close_to_reference(o.dx, rows(expected.dx), kRtol, "dx");
    expect_close_to_reference(o.dresidual, rows(expected.dresidual), kRtol, "dresidual");
    expect_close_to_reference(o.saved, expected.saved, kRtol, "saved");
    expect_close_to_reference(o.running_mean, expected.running_mean, kRtol, "running_mean");
    expect_close_to_reference(o.running_var, expected.running_var, kRtol, "running_var");
    expect_bitwise_equal(o.saved, parts[0].saved, "saved, against replica 0's");
    expect_bitwise_equal(o.running_var, parts[0].running_var, "running_var, against replica 0's");
    // Each started from the same dgamma and dbeta and added its own part.
    const BatchNormOutputs start(part, d);
    for (int c = 0; c < part.c; ++c) {
      dgamma_sum[c] += o.dgamma[c] - start.dgamma[c];
      dbeta_sum[c] += o.dbeta[c] - start.dbeta[c];
    }
  }
  const BatchNormOutputs start(whole, d);
  for (int c = 0; c < part.c; ++c) {
    dgamma_sum[c] += start.dgamma[c];
    dbeta_sum[c] += start.dbeta[c];
  }
  expect_close_to_reference(dgamma_sum, expected.dgamma, kRtol, "dgamma summed over replicas");
  expect_close_to_reference(dbeta_sum, expected.dbeta, kRtol, "dbeta summed over replicas");
}

}  // namespace
}  // namespace xtrain
