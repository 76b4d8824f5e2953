// BatchNorm2d kernels: a hand-computed example, the reference twin on odd and ResNet-50 shapes,
// 1 vs 2 and 3 threads bitwise, and the overwrite / accumulate contract of the backward.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "lib/kernels/batchnorm.h"
#include "lib/kernels/reference/batchnorm.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

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

// x around `offset` with spread `scale`; gamma in [0.5, 1.5), beta and dy in [-1, 1), running
// statistics away from the defaults so the momentum update is visible.
struct BatchNormData {
  BatchNormData(const BatchNormShape& s, uint32_t seed, float offset = 0.0f, float scale = 1.0f)
      : x(random_floats(s.m * s.c, seed, offset - scale, offset + scale)),
        gamma(random_floats(s.c, seed + 1, 0.5f, 1.5f)),
        beta(random_floats(s.c, seed + 2)),
        dy(random_floats(s.m * s.c, seed + 3)),
        running_mean(random_floats(s.c, seed + 4)),
        running_var(random_floats(s.c, seed + 5, 0.5f, 2.0f)) {}

  std::vector<float> x, gamma, beta, dy, running_mean, running_var;
};

// Everything the forwards and the backward write. y, y_eval and dx start as NaN (overwritten);
// dgamma and dbeta start from fixed values (they accumulate).
struct BatchNormOutputs {
  explicit BatchNormOutputs(const BatchNormShape& s, const BatchNormData& d)
      : y(nans(s.m * s.c)),
        y_eval(nans(s.m * s.c)),
        dx(nans(s.m * s.c)),
        mean(nans(s.c)),
        inv_std(nans(s.c)),
        running_mean(d.running_mean),
        running_var(d.running_var),
        dgamma(random_floats(s.c, 91)),
        dbeta(random_floats(s.c, 92)) {}

  std::vector<float> y, y_eval, dx, mean, inv_std, running_mean, running_var, dgamma, dbeta;
};

BatchNormOutputs run_fast(const BatchNormShape& s, const BatchNormData& d, const Exec& ex) {
  BatchNormOutputs o(s, d);
  kernels::batchnorm_forward_train(s, d.x.data(), d.gamma.data(), d.beta.data(), o.y.data(),
                                   o.mean.data(), o.inv_std.data(), o.running_mean.data(),
                                   o.running_var.data(), kMomentum, ex);
  kernels::batchnorm_forward_eval(s, d.x.data(), d.gamma.data(), d.beta.data(),
                                  d.running_mean.data(), d.running_var.data(), o.y_eval.data(), ex);
  kernels::batchnorm_backward(s, d.x.data(), o.y.data(), d.dy.data(), d.gamma.data(), o.mean.data(),
                              o.inv_std.data(), o.dx.data(), o.dgamma.data(), o.dbeta.data(), ex);
  return o;
}

BatchNormOutputs run_reference(const BatchNormShape& s, const BatchNormData& d) {
  BatchNormOutputs o(s, d);
  kernels::reference::batchnorm_forward_train(
      s, d.x.data(), d.gamma.data(), d.beta.data(), o.y.data(), o.mean.data(), o.inv_std.data(),
      o.running_mean.data(), o.running_var.data(), kMomentum);
  kernels::reference::batchnorm_forward_eval(s, d.x.data(), d.gamma.data(), d.beta.data(),
                                             d.running_mean.data(), d.running_var.data(),
                                             o.y_eval.data());
  kernels::reference::batchnorm_backward(s, d.x.data(), o.y.data(), d.dy.data(), d.gamma.data(),
                                         o.mean.data(), o.inv_std.data(), o.dx.data(),
                                         o.dgamma.data(), o.dbeta.data());
  return o;
}

void expect_matches_reference(const BatchNormShape& s, float offset = 0.0f, float scale = 1.0f) {
  SCOPED_TRACE(describe(s) + " x in " + std::to_string(offset) + " +- " + std::to_string(scale));
  const BatchNormData d(s, 7, offset, scale);
  const BatchNormOutputs fast = run_fast(s, d, Exec{});
  const BatchNormOutputs ref = run_reference(s, d);
  expect_close_to_reference(fast.y, ref.y, kRtol, "y");
  expect_close_to_reference(fast.mean, ref.mean, kRtol, "mean");
  expect_close_to_reference(fast.inv_std, ref.inv_std, kRtol, "inv_std");
  expect_close_to_reference(fast.running_mean, ref.running_mean, kRtol, "running_mean");
  expect_close_to_reference(fast.running_var, ref.running_var, kRtol, "running_var");
  expect_close_to_reference(fast.y_eval, ref.y_eval, kRtol, "y_eval");
  expect_close_to_reference(fast.dx, ref.dx, kRtol, "dx");
  expect_close_to_reference(fast.dgamma, ref.dgamma, kRtol, "dgamma");
  expect_close_to_reference(fast.dbeta, ref.dbeta, kRtol, "dbeta");
}

// One channel, x = {1, 2, 3, 4}: mean 2.5, biased variance 1.25, unbiased 5/3.
TEST(BatchNorm2dKernel, HandExampleTrainThenEval) {
  const BatchNormShape s{4, 1, kEps};
  const std::vector<float> x = {1, 2, 3, 4};
  const float gamma = 1.0f, beta = 0.0f;
  float mean = NAN, inv_std = NAN, running_mean = 0.0f, running_var = 1.0f;
  std::vector<float> y = nans(4);
  kernels::batchnorm_forward_train(s, x.data(), &gamma, &beta, y.data(), &mean, &inv_std,
                                   &running_mean, &running_var, kMomentum, Exec{});
  const double expected_inv_std = 1.0 / std::sqrt(1.25 + 1e-5);
  EXPECT_FLOAT_EQ(mean, 2.5f);
  EXPECT_NEAR(inv_std, expected_inv_std, 1e-6);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(y[i], (x[i] - 2.5) * expected_inv_std, 1e-6) << i;
  EXPECT_NEAR(running_mean, 0.25, 1e-7);              // 0.9 * 0 + 0.1 * 2.5
  EXPECT_NEAR(running_var, 0.9 + 0.1 * 5 / 3, 1e-6);  // unbiased: 1.25 * 4 / 3 = 5 / 3

  // Eval normalizes with the running statistics, not the batch's.
  std::vector<float> y_eval = nans(4);
  kernels::batchnorm_forward_eval(s, x.data(), &gamma, &beta, &running_mean, &running_var,
                                  y_eval.data(), Exec{});
  const double eval_inv_std = 1.0 / std::sqrt(0.9 + 0.1 * 5.0 / 3.0 + 1e-5);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(y_eval[i], (x[i] - 0.25) * eval_inv_std, 1e-6) << i;
}

// gamma and beta scale and shift the normalized output; the same 4 values laid out as a 2x2
// image of one sample give the same statistics.
TEST(BatchNorm2dKernel, HandExampleGammaBeta) {
  const BatchNormShape s{2 * 2, 1, kEps};  // N=1, H=W=2
  const std::vector<float> x = {1, 2, 3, 4};
  const float gamma = 2.0f, beta = -3.0f;
  float mean, inv_std, running_mean = 0.0f, running_var = 1.0f;
  std::vector<float> y(4);
  kernels::batchnorm_forward_train(s, x.data(), &gamma, &beta, y.data(), &mean, &inv_std,
                                   &running_mean, &running_var, kMomentum, Exec{});
  const double istd = 1.0 / std::sqrt(1.25 + 1e-5);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(y[i], 2.0 * (x[i] - 2.5) * istd - 3.0, 1e-5) << i;
}

// dy = xhat gives dx = 0 (a shift along the normalized output is fully absorbed by gamma);
// dgamma = sum(xhat^2) = M, dbeta = sum(xhat) = 0, added to what was there.
TEST(BatchNorm2dKernel, HandExampleBackward) {
  const BatchNormShape s{4, 1, 0.0f};
  const std::vector<float> x = {1, 2, 3, 4};
  const float gamma = 1.0f, beta = 0.0f;
  float mean, inv_std, running_mean = 0.0f, running_var = 1.0f;
  std::vector<float> xhat(4);
  kernels::batchnorm_forward_train(s, x.data(), &gamma, &beta, xhat.data(), &mean, &inv_std,
                                   &running_mean, &running_var, kMomentum, Exec{});
  std::vector<float> dx = nans(4);
  float dgamma = 10.0f, dbeta = 20.0f;
  kernels::batchnorm_backward(s, x.data(), xhat.data(), xhat.data(), &gamma, &mean, &inv_std,
                              dx.data(), &dgamma, &dbeta, Exec{});
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(dx[i], 0.0f, 1e-6) << i;
  EXPECT_NEAR(dgamma, 10.0f + 4.0f, 1e-5);
  EXPECT_NEAR(dbeta, 20.0f, 1e-6);

  // dy constant: a shift of the output is absorbed by beta, dx = 0 again; dbeta += 4 * 0.5.
  const std::vector<float> dy(4, 0.5f);
  kernels::batchnorm_backward(s, x.data(), xhat.data(), dy.data(), &gamma, &mean, &inv_std,
                              dx.data(), &dgamma, &dbeta, Exec{});
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

// With the fused ReLU (BatchNormShape::relu), on odd and ResNet shapes; at batch 1 and
// threads 1 / 2 the same bits as well.
TEST(BatchNorm2dKernel, FusedReluMatchesReference) {
  for (const BatchNormShape& s :
       {BatchNormShape{3 * 5 * 7, 13, kEps, true}, BatchNormShape{56 * 56, 64, kEps, true},
        BatchNormShape{4 * 28 * 28 + 3, 16, kEps, true}}) {
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
                              with_dx.mean.data(), with_dx.inv_std.data(), nullptr, dgamma.data(),
                              dbeta.data(), Exec{});
  expect_bitwise_equal(dgamma, with_dx.dgamma, "dgamma");
  expect_bitwise_equal(dbeta, with_dx.dbeta, "dbeta");
}

// Reductions split fixed chunks of rows over the threads, element-wise passes split rows; every
// output, including the running statistics, keeps its bits with 1, 2 or 3 threads. The shapes
// include resnet20's first stage (16 channels) with a partial last chunk and a row count that is
// not a multiple of 4, and one chunk only (7x7x2048, 3x5x7x13).
TEST(BatchNorm2dKernel, OneTwoAndThreeThreadsAreBitwiseEqual) {
  testing::PoolExec two(2), three(3);
  for (const BatchNormShape& s :
       {BatchNormShape{56 * 56, 64, kEps}, BatchNormShape{7 * 7, 2048, kEps},
        BatchNormShape{3 * 5 * 7, 13, kEps}, BatchNormShape{4 * 28 * 28 + 3, 16, kEps}}) {
    SCOPED_TRACE(describe(s));
    const BatchNormData d(s, 17);
    const BatchNormOutputs a = run_fast(s, d, Exec{});
    for (Exec ex : {two.exec(), three.exec()}) {
      SCOPED_TRACE(std::to_string(ex.num_threads()) + " threads");
      const BatchNormOutputs b = run_fast(s, d, ex);
      expect_bitwise_equal(a.y, b.y, "y");
      expect_bitwise_equal(a.mean, b.mean, "mean");
      expect_bitwise_equal(a.inv_std, b.inv_std, "inv_std");
      expect_bitwise_equal(a.running_mean, b.running_mean, "running_mean");
      expect_bitwise_equal(a.running_var, b.running_var, "running_var");
      expect_bitwise_equal(a.y_eval, b.y_eval, "y_eval");
      expect_bitwise_equal(a.dx, b.dx, "dx");
      expect_bitwise_equal(a.dgamma, b.dgamma, "dgamma");
      expect_bitwise_equal(a.dbeta, b.dbeta, "dbeta");
    }
  }
}

}  // namespace
}  // namespace xtrain
