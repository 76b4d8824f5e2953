// SGD against torch.optim.SGD worked by hand over two steps (dampening 0):
//   d = g + wd * p;  buf = mu * buf + d (buf = d on the first step);  p -= lr * (nesterov ?
//   d + mu * buf : buf)
#include "lib/optim/sgd.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "lib/base/check.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

// The values of an SGD's one state buffer, its momentum.
std::vector<float> momentum_of(SGD& sgd, size_t n) {
  const std::vector<StateBuffer> state = sgd.state();
  EXPECT_EQ(state.size(), 1u);
  EXPECT_EQ(state[0].name, "momentum_buffer");
  return std::vector<float>(state[0].values, state[0].values + n);
}

struct TwoSteps {
  std::vector<float> params, momentum;
};

// p = {1, -2}, first gradient {0.5, 0.25}, second {-1, 2}, lr 0.1, momentum 0.9, wd 0.01.
TwoSteps run_two_steps(bool nesterov, const Exec& ex = Exec{}) {
  SGD sgd(/*momentum=*/0.9f, nesterov, {ParamTensor{0, 2, /*weight_decay=*/0.01f}});
  TwoSteps r{{1.0f, -2.0f}, {}};
  const std::vector<float> g1 = {0.5f, 0.25f}, g2 = {-1.0f, 2.0f};
  sgd.step(r.params.data(), g1.data(), 0.1f, /*step=*/1, ex);
  sgd.step(r.params.data(), g2.data(), 0.1f, /*step=*/2, ex);
  r.momentum = momentum_of(sgd, 2);
  return r;
}

TEST(SGD, TwoStepsMatchHandComputedMomentum) {
  // Step 1: d = {0.51, 0.23}, buf = d, p = {0.949, -2.023}.
  // Step 2: d = {-1 + 0.00949, 2 - 0.02023} = {-0.99051, 1.97977},
  //         buf = 0.9 * {0.51, 0.23} + d = {-0.53151, 2.18677},
  //         p = {0.949 + 0.053151, -2.023 - 0.218677} = {1.002151, -2.241677}.
  const TwoSteps r = run_two_steps(/*nesterov=*/false);
  testing::expect_close(r.momentum, {-0.53151f, 2.18677f}, 1e-6f, 1e-6f, "momentum");
  testing::expect_close(r.params, {1.002151f, -2.241677f}, 1e-6f, 1e-6f, "params");
}

TEST(SGD, TwoStepsMatchHandComputedNesterov) {
  // Step 1: d = {0.51, 0.23}, buf = d, update d + 0.9 * buf = {0.969, 0.437},
  //         p = {0.9031, -2.0437}.
  // Step 2: d = {-1 + 0.009031, 2 - 0.020437} = {-0.990969, 1.979563},
  //         buf = {0.459 - 0.990969, 0.207 + 1.979563} = {-0.531969, 2.186563},
  //         update d + 0.9 * buf = {-1.4697411, 3.9474697}, p = {1.05007411, -2.43844697}.
  const TwoSteps r = run_two_steps(/*nesterov=*/true);
  testing::expect_close(r.momentum, {-0.531969f, 2.186563f}, 1e-6f, 1e-6f, "momentum");
  testing::expect_close(r.params, {1.0500741f, -2.438447f}, 1e-6f, 1e-6f, "params");
}

TEST(SGD, ZeroMomentumIsPlainGradientDescent) {
  SGD sgd(/*momentum=*/0.0f, /*nesterov=*/false, {ParamTensor{0, 2, /*weight_decay=*/0.0f}});
  std::fill_n(sgd.state()[0].values, 2, 7.0f);
  std::vector<float> p = {1.0f, 2.0f};
  const std::vector<float> g = {0.5f, -1.0f};
  sgd.step(p.data(), g.data(), 0.2f, /*step=*/1, Exec{});
  testing::expect_close(p, {0.9f, 2.2f}, 0.0f, 1e-7f, "params");
  testing::expect_close(momentum_of(sgd, 2), {7.0f, 7.0f}, 0.0f, 0.0f, "untouched momentum");
}

// A large flat buffer is split over threads; every element gets the same update either way.
TEST(SGD, OneAndTwoThreadsAreBitwiseEqual) {
  const size_t n = 100003;
  const std::vector<float> grads = testing::random_floats(n, 3);
  auto run = [&](const Exec& ex) {
    // Three tensors at their own decays, one of them a single float between chunks' worth.
    SGD sgd(0.9f, false,
            {ParamTensor{0, 50000, 1e-4f}, ParamTensor{50000, 1, 0.0f},
             ParamTensor{50001, n - 50001, 0.1f}});
    std::vector<float> p = testing::random_floats(n, 4);
    for (int step = 1; step <= 3; ++step) sgd.step(p.data(), grads.data(), 0.1f, step, ex);
    return p;
  };
  testing::PoolExec two(2);
  EXPECT_EQ(run(Exec{}), run(two.exec()));
}

// The update is vectorized (Eigen) with a scalar tail, so an element's bits must not depend on
// which of the two it falls in: one call over the buffer equals one call per element.
TEST(SGD, VectorAndScalarPathsAreBitwiseEqual) {
  const size_t n = 1003;
  const std::vector<float> grads = testing::random_floats(n, 5);
  struct Settings {
    float momentum;
    bool nesterov;
  };
  for (const Settings& s : {Settings{0.9f, false}, Settings{0.9f, true}, Settings{0.0f, false}}) {
    SGD whole_sgd(s.momentum, s.nesterov, {ParamTensor{0, n, 1e-4f}});
    std::vector<SGD> single_sgds;
    for (size_t i = 0; i < n; ++i)
      single_sgds.emplace_back(s.momentum, s.nesterov, std::vector{ParamTensor{0, 1, 1e-4f}});
    std::vector<float> whole = testing::random_floats(n, 6), single = whole;
    for (int step = 0; step < 2; ++step) {
      whole_sgd.step(whole.data(), grads.data(), 0.1f, /*step=*/1, Exec{});
      for (size_t i = 0; i < n; ++i)
        single_sgds[i].step(&single[i], &grads[i], 0.1f, /*step=*/1, Exec{});
    }
    EXPECT_EQ(whole, single) << "momentum " << s.momentum << " nesterov " << s.nesterov;
    std::vector<float> single_momentum;
    for (SGD& sgd : single_sgds) single_momentum.push_back(momentum_of(sgd, 1)[0]);
    EXPECT_EQ(momentum_of(whole_sgd, n), single_momentum);
  }
}

// A resumed run's replicas take core 0's state: the same momentum, so the same next step.
TEST(SGD, CopiedStateStepsAlike) {
  const std::vector<float> grads = {0.5f, -0.25f, 1.0f};
  const std::vector<ParamTensor> tensors = {ParamTensor{0, 3, 1e-4f}};
  SGD first(0.9f, false, tensors), second(0.9f, false, tensors);
  std::vector<float> p = {1.0f, 2.0f, 3.0f};
  first.step(p.data(), grads.data(), 0.1f, /*step=*/1, Exec{});
  second.copy_state_from(first);
  EXPECT_EQ(momentum_of(second, 3), momentum_of(first, 3));
  std::vector<float> q = p;
  first.step(p.data(), grads.data(), 0.1f, /*step=*/1, Exec{});
  second.step(q.data(), grads.data(), 0.1f, /*step=*/1, Exec{});
  EXPECT_EQ(p, q);
  SGD other_size(0.9f, false, {ParamTensor{0, 2, 1e-4f}});
  EXPECT_THROW(other_size.copy_state_from(first), Error);
}

// Each tensor decays at its own rate: a part of the buffer at 0 is untouched by decay.
TEST(SGD, EachTensorTakesItsOwnWeightDecay) {
  SGD sgd(/*momentum=*/0.0f, /*nesterov=*/false,
          {ParamTensor{0, 2, /*weight_decay=*/0.5f}, ParamTensor{2, 1, /*weight_decay=*/0.0f}});
  std::vector<float> p = {1.0f, 2.0f, 4.0f};
  const std::vector<float> g = {0.0f, 0.0f, 0.0f};
  sgd.step(p.data(), g.data(), 0.1f, /*step=*/1, Exec{});
  testing::expect_close(p, {0.95f, 1.9f, 4.0f}, 0.0f, 1e-7f, "params");
}

}  // namespace
}  // namespace xtrain
