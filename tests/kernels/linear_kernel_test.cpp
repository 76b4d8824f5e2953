// Linear kernels against their reference twin on odd and ResNet-50 shapes, the documented
// overwrite / accumulate contract, and 1 vs 2 threads.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lib/kernels/linear.h"
#include "lib/kernels/reference/linear.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using kernels::LinearShape;
using testing::expect_bitwise_equal;
using testing::expect_close_to_reference;
using testing::nans;
using testing::random_floats;

constexpr float kRtol = 1e-4f;

struct LinearOutputs {
  std::vector<float> y, dx, dweight, dbias;
};

// y and dx start as NaN (overwritten); dweight and dbias from fixed values (they accumulate).
LinearOutputs run(const LinearShape& s, bool with_bias, bool reference, const Exec& ex) {
  const std::vector<float> x = random_floats(size_t(s.n) * s.in, 1),
                           weight = random_floats(size_t(s.out) * s.in, 2),
                           bias = random_floats(s.out, 3),
                           dy = random_floats(size_t(s.n) * s.out, 4);
  LinearOutputs o{nans(size_t(s.n) * s.out), nans(size_t(s.n) * s.in),
                  random_floats(size_t(s.out) * s.in, 5), random_floats(s.out, 6)};
  const float* b = with_bias ? bias.data() : nullptr;
  float* db = with_bias ? o.dbias.data() : nullptr;
  if (reference) {
    kernels::reference::linear_forward(s, x.data(), weight.data(), b, o.y.data());
    kernels::reference::linear_backward_data(s, dy.data(), weight.data(), o.dx.data());
    kernels::reference::linear_backward_weight(s, x.data(), dy.data(), o.dweight.data(), db);
  } else {
    kernels::linear_forward(s, x.data(), weight.data(), b, o.y.data(), ex);
    kernels::linear_backward_data(s, dy.data(), weight.data(), o.dx.data(), ex);
    kernels::linear_backward_weight(s, x.data(), dy.data(), o.dweight.data(), db, ex);
  }
  return o;
}

void expect_matches_reference(const LinearShape& s, bool with_bias) {
  SCOPED_TRACE("[N " + std::to_string(s.n) + ", in " + std::to_string(s.in) + ", out " +
               std::to_string(s.out) + (with_bias ? "] bias" : "] no bias"));
  const LinearOutputs fast = run(s, with_bias, false, Exec{});
  const LinearOutputs ref = run(s, with_bias, true, Exec{});
  expect_close_to_reference(fast.y, ref.y, kRtol, "y");
  expect_close_to_reference(fast.dx, ref.dx, kRtol, "dx");
  expect_close_to_reference(fast.dweight, ref.dweight, kRtol, "dweight");
  expect_close_to_reference(fast.dbias, ref.dbias, kRtol, "dbias");
  if (!with_bias) expect_bitwise_equal(fast.dbias, ref.dbias, "dbias untouched when null");
}

TEST(LinearKernel, MatchesReferenceOnOddShapes) {
  for (const LinearShape& s : {LinearShape{3, 13, 7}, LinearShape{3, 3, 13}, LinearShape{1, 1, 1},
                               LinearShape{5, 37, 29}}) {
    for (bool with_bias : {false, true}) expect_matches_reference(s, with_bias);
  }
}

// ResNet-50's fc (2048 -> 1000) at batch 1 and at a batch larger than one GEMM split.
TEST(LinearKernel, MatchesReferenceOnResNet50Shapes) {
  expect_matches_reference(LinearShape{1, 2048, 1000}, true);
  expect_matches_reference(LinearShape{67, 512, 10}, true);
}

// y = x W^T + b and its gradients, by hand: x [1, 2], W [3, 2].
TEST(LinearKernel, HandExample) {
  const LinearShape s{1, 2, 3};
  const std::vector<float> x = {1, 2}, weight = {1, 0, 0, 1, 1, 1}, bias = {10, 20, 30};
  std::vector<float> y = nans(3);
  kernels::linear_forward(s, x.data(), weight.data(), bias.data(), y.data(), Exec{});
  EXPECT_EQ(y, (std::vector<float>{11, 22, 33}));
  const std::vector<float> dy = {1, 2, 3};
  std::vector<float> dx = nans(2);
  kernels::linear_backward_data(s, dy.data(), weight.data(), dx.data(), Exec{});
  EXPECT_EQ(dx, (std::vector<float>{4, 5}));
  std::vector<float> dweight(6, 1.0f), dbias(3, 1.0f);  // accumulates onto the ones
  kernels::linear_backward_weight(s, x.data(), dy.data(), dweight.data(), dbias.data(), Exec{});
  EXPECT_EQ(dweight, (std::vector<float>{2, 3, 3, 5, 4, 7}));
  EXPECT_EQ(dbias, (std::vector<float>{2, 3, 4}));
}

// linear_backward_weight documents "dweight += ..., dbias += ...": two calls give twice one.
TEST(LinearKernel, BackwardWeightAccumulates) {
  const LinearShape s{5, 37, 29};
  const std::vector<float> x = random_floats(size_t(s.n) * s.in, 1),
                           dy = random_floats(size_t(s.n) * s.out, 2);
  std::vector<float> once(size_t(s.out) * s.in, 0.0f), once_bias(s.out, 0.0f);
  kernels::linear_backward_weight(s, x.data(), dy.data(), once.data(), once_bias.data(), Exec{});
  std::vector<float> twice(once.size(), 0.0f), twice_bias(s.out, 0.0f);
  for (int call = 0; call < 2; ++call) {
    kernels::linear_backward_weight(s, x.data(), dy.data(), twice.data(), twice_bias.data(),
                                    Exec{});
  }
  for (float& v : once) v *= 2.0f;
  for (float& v : once_bias) v *= 2.0f;
  expect_close_to_reference(twice, once, kRtol, "dweight");
  expect_close_to_reference(twice_bias, once_bias, kRtol, "dbias");
}

TEST(LinearKernel, OneAndTwoThreadsAgreeWithinTolerance) {
  testing::PoolExec two(2);
  for (const LinearShape& s : {LinearShape{67, 512, 10}, LinearShape{3, 2048, 1000}}) {
    const LinearOutputs a = run(s, true, false, Exec{});
    const LinearOutputs b = run(s, true, false, two.exec());
    expect_close_to_reference(b.y, a.y, kRtol, "y");
    expect_close_to_reference(b.dx, a.dx, kRtol, "dx");
    expect_close_to_reference(b.dweight, a.dweight, kRtol, "dweight");
    expect_bitwise_equal(b.dbias, a.dbias, "dbias");  // summed serially
  }
}

}  // namespace
}  // namespace xtrain
