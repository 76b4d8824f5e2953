#include "lib/graph/param_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "lib/graph/graph_builder.h"
#include "tests/graph/tiny_resnet.h"

namespace xtrain {
namespace {

struct Moments {
  double mean, std, max_abs;
};

Moments moments(ParamStore& store, const std::string& name) {
  const ParamEntry* e = store.find(name);
  EXPECT_NE(e, nullptr) << name;
  const float* v = store.data(*e);
  const int64_t n = e->spec.shape.numel();
  double sum = 0, sum_sq = 0, max_abs = 0;
  for (int64_t i = 0; i < n; ++i) {
    sum += v[i];
    sum_sq += double{v[i]} * v[i];
    max_abs = std::max(max_abs, std::abs(double{v[i]}));
  }
  const double mean = sum / n;
  return {mean, std::sqrt(sum_sq / n - mean * mean), max_abs};
}

// One 3x3 convolution of 64 -> 64 channels (36,864 weights) per rule: enough draws that the
// moments sit within a few percent of the distribution's.
TEST(ParamStore, InitializeDrawsEachRulesDistribution) {
  using Weight = WeightInit::Weight;
  GraphBuilder g(64);
  g.init_convs({Weight::kNormal, 0.5f, /*zero_bias=*/true});
  Value x = g.conv2d("normal", g.input(), 64, 3, 1, 1, /*bias=*/true);
  g.init_convs({Weight::kTruncatedNormal, 1.5f});  // cut at +-2: 1.33 standard deviations
  x = g.conv2d("truncated", x, 64, 3, 1, 1);
  g.init_convs({Weight::kKaimingUniformFanIn});
  g.conv2d("uniform", x, 64, 3, 1, 1);
  ParamStore store(*g.finish());
  store.initialize(7);

  const Moments normal = moments(store, "normal.weight");
  EXPECT_NEAR(normal.mean, 0.0, 0.01);
  EXPECT_NEAR(normal.std, 0.5, 0.01);
  EXPECT_EQ(moments(store, "normal.bias").max_abs, 0.0);

  // A normal(0, 1.5) cut to [-2, 2] has standard deviation 1.5 * 0.6820 = 1.023 (the truncated
  // normal's variance 1 - 2 a phi(a) / (2 Phi(a) - 1) at a = 4 / 3).
  const Moments truncated = moments(store, "truncated.weight");
  EXPECT_LE(truncated.max_abs, 2.0);
  EXPECT_NEAR(truncated.std, 1.023, 0.02);

  // kaiming_uniform_ over fan_in 576: bound sqrt(6 / 576), standard deviation bound / sqrt(3).
  const double bound = std::sqrt(6.0 / 576);
  const Moments uniform = moments(store, "uniform.weight");
  EXPECT_LE(uniform.max_abs, bound);
  EXPECT_GT(uniform.max_abs, 0.99 * bound);
  EXPECT_NEAR(uniform.std, bound / std::sqrt(3.0), 0.02 * bound);
}

TEST(ParamStore, InitializeIsAFunctionOfTheSeed) {
  GraphBuilder g(3);
  g.conv2d("conv", g.input(), 8, 3, 1, 1);
  const auto graph = g.finish();
  ParamStore a(*graph), b(*graph), c(*graph);
  a.initialize(1);
  b.initialize(1);
  c.initialize(2);
  EXPECT_TRUE(std::equal(a.params(), a.params() + a.num_params(), b.params()));
  EXPECT_FALSE(std::equal(a.params(), a.params() + a.num_params(), c.params()));
}

// The memory plan counts a store by sizes_for(), which lays it out as the constructor does: a
// gradient per parameter, BatchNorm's running statistics and its int64 batch counters.
TEST(ParamStore, CountsTheBuffersItAllocates) {
  const auto graph = testing::tiny_resnet(/*num_classes=*/3);
  const ParamSizes sizes = ParamStore::sizes_for(*graph);
  const ParamStore store(*graph);
  EXPECT_EQ(sizes.params, store.num_params());
  EXPECT_EQ(sizes.buffers, store.num_buffers());
  EXPECT_EQ(sizes.counters, store.num_counters());
  EXPECT_GT(sizes.buffers, 0u);
  EXPECT_GT(sizes.counters, 0u);
  EXPECT_EQ(sizes.bytes(), store.bytes());
  EXPECT_EQ(store.bytes(), (2 * store.num_params() + store.num_buffers()) * sizeof(float) +
                               store.num_counters() * sizeof(int64_t));
}

}  // namespace
}  // namespace xtrain
