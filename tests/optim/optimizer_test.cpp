// The optimizers' common contract: --opt's checks, state sizes for the memory plan, state copies
// for resumed replicas, and results that do not depend on the thread count (the per-tensor norms
// of LARS and LAMB included). Their arithmetic is checked against PyTorch in
// optimizer_golden_test.cpp.
#include "lib/optim/optimizer.h"

#include <gtest/gtest.h>

#include "lib/base/check.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using testing::error_of;

OptimizerOptions named(const std::string& name) {
  OptimizerOptions o;
  o.name = name;
  return o;
}

// Tensors of several sizes, one of them split between threads' chunks, adapted or not.
std::vector<ParamTensor> mixed_tensors() {
  return {ParamTensor{0, 30000, 1e-4f, true}, ParamTensor{30000, 7, 0.0f, false},
          ParamTensor{30007, 40000, 1e-4f, true}, ParamTensor{70007, 3, 1e-4f, false}};
}

TEST(Optimizer, RefusesBadOptionsNamingTheFlag) {
  EXPECT_EQ(error_of([] {
              make_optimizer(named("adam"), {ParamTensor{0, 1}});
            }),
            "--opt must be one of sgd, sgd_nesterov, rmsprop, adamw, lars, lamb, got 'adam'");
  OptimizerOptions o = named("sgd");
  o.nesterov = true;
  o.momentum = 0.0f;
  EXPECT_EQ(error_of([&] {
              make_optimizer(o, {ParamTensor{0, 1}});
            }),
            "--nesterov needs a momentum > 0");
  o = named("adamw");
  o.nesterov = true;
  EXPECT_EQ(error_of([&] {
              make_optimizer(o, {ParamTensor{0, 1}});
            }),
            "--nesterov applies to --opt=sgd and lars, not adamw");
  o = named("sgd_nesterov");
  o.momentum = 0.0f;
  EXPECT_EQ(error_of([&] {
              make_optimizer(o, {ParamTensor{0, 1}});
            }),
            "--opt=sgd_nesterov needs a --momentum > 0");
  EXPECT_THROW(make_optimizer(named("sgd"), {ParamTensor{1, 1}}), Error);  // not from 0
}

// The memory plan's count is what the optimizer allocates.
TEST(Optimizer, StateBytesAreItsBuffers) {
  for (const std::string& name : optimizer_names()) {
    for (const float momentum : {0.0f, 0.9f}) {
      OptimizerOptions o = named(name);
      o.momentum = momentum;
      if (name == "sgd_nesterov" && momentum == 0.0f) continue;
      const std::unique_ptr<Optimizer> optimizer = make_optimizer(o, {ParamTensor{0, 100}});
      size_t floats = 0;
      for (const StateBuffer& b : optimizer->state()) floats += b.size;
      EXPECT_EQ(optimizer_state_bytes(o, 100), floats * sizeof(float)) << name << " " << momentum;
    }
  }
}

// Each optimizer's steps on one and on two threads, and a copy's next step, are bitwise equal.
TEST(Optimizer, ThreadsAndCopiesChangeNoBit) {
  const std::vector<ParamTensor> tensors = mixed_tensors();
  const size_t n = covered_floats(tensors);
  testing::PoolExec two(2);
  for (const std::string& name : optimizer_names()) {
    SCOPED_TRACE(name);
    auto run = [&](const Exec& ex, Optimizer& optimizer, std::vector<float>& params, int steps) {
      for (int step = 1; step <= steps; ++step) {
        const std::vector<float> grads = testing::random_floats(n, 10 + step);
        optimizer.step(params.data(), grads.data(), 0.01f, step, ex);
      }
    };
    const auto one_thread = make_optimizer(named(name), tensors);
    const auto two_threads = make_optimizer(named(name), tensors);
    std::vector<float> a = testing::random_floats(n, 1), b = a;
    run(Exec{}, *one_thread, a, 3);
    run(two.exec(), *two_threads, b, 3);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, testing::random_floats(n, 1));  // it stepped

    const auto copy = make_optimizer(named(name), tensors);
    copy->copy_state_from(*one_thread);
    std::vector<float> c = a;
    const std::vector<float> grads = testing::random_floats(n, 20);
    one_thread->step(a.data(), grads.data(), 0.01f, 4, Exec{});
    copy->step(c.data(), grads.data(), 0.01f, 4, Exec{});
    EXPECT_EQ(a, c);
  }
  const auto sgd = make_optimizer(named("sgd"), tensors);
  const auto adamw = make_optimizer(named("adamw"), tensors);
  EXPECT_THROW(sgd->copy_state_from(*adamw), Error);
}

// LARS's trust ratio: a tensor's step shrinks with eta |w| / (|g| + wd |w|); an unadapted tensor
// takes plain momentum SGD at the rate given, without decay.
TEST(Optimizer, LarsScalesAdaptedTensorsOnly) {
  OptimizerOptions o = named("lars");
  o.momentum = 0.0f;
  o.trust_coefficient = 0.5f;
  const auto lars =
      make_optimizer(o, {ParamTensor{0, 2, 0.0f, true}, ParamTensor{2, 1, 0.5f, false}});
  std::vector<float> p = {3.0f, 4.0f, 1.0f};        // |w| = 5
  const std::vector<float> g = {0.0f, 2.0f, 1.0f};  // |g| = 2
  lars->step(p.data(), g.data(), 0.1f, 1, Exec{});
  // trust = 0.5 * 5 / 2 = 1.25: w -= 0.125 * g
  testing::expect_close(p, {3.0f, 3.75f, 0.9f}, 1e-6f, 0.0f, "params");
}

}  // namespace
}  // namespace xtrain
