#include "lib/graph/plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "lib/base/check.h"
#include "lib/graph/replica.h"
#include "lib/kernels/thread_scratch.h"
#include "lib/nn/cross_entropy_loss.h"
#include "lib/tensor/bfloat16.h"
#include "models/registry.h"
#include "tests/graph/tiny_inception.h"
#include "tests/graph/tiny_resnet.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

const CrossEntropyLoss kLoss("loss", /*label_smoothing=*/0.0f);

constexpr int kClasses = 3;

void fill_image(Plan& plan, uint32_t seed) {
  const std::vector<float> x = testing::random_floats(plan.input().numel(), seed);
  plan.set_images(0, plan.input().shape[0], x.data());
}

// The image and labels of a plan with a loss.
void fill_batch(Plan& plan, uint32_t seed) {
  fill_image(plan, seed);
  for (int64_t i = 0; i < plan.input().shape[0]; ++i)
    plan.labels()[i] = static_cast<int32_t>(i % kClasses);
}

// The whole network's parameter gradients against central differences of the loss. This covers
// what layer checks cannot: the wiring, the residual gradient sums and the loss at the root.
TEST(Plan, ParameterGradientsOfASmallResNetMatchFiniteDifferences) {
  Replica replica(testing::tiny_resnet(kClasses));
  ParamStore& store = replica.store();
  store.initialize(7);
  Plan& plan = replica.plan_for(Shape{3, 8, 8, 3}, PlanMode::kTrain, &kLoss);
  fill_batch(plan, 11);
  const Exec ex;

  store.zero_grads();
  plan.forward(ex);
  plan.backward(ex);
  const std::vector<float> analytic(store.grads(), store.grads() + store.num_params());

  // ReLU kinks: with BatchNorm over a few pixels, many pre-activations sit within a step of
  // zero, and a difference that crosses one is off for that parameter and that step. A wiring
  // bug (a lost residual gradient, a wrong buffer) is off for whole layers at every step, so the
  // check is on the whole vector: a small relative error overall and few parameters off. The
  // bounds sit well above a correct plan's error and far below that of a plan without the
  // residual gradient sum, whose error is of the gradients' own size.
  auto central_difference = [&](float& p, float step) {
    const float original = p;
    p = original + step;
    plan.forward(ex);
    const double plus = plan.loss();
    p = original - step;
    plan.forward(ex);
    const double minus = plan.loss();
    p = original;
    return (plus - minus) / (2.0 * step);
  };
  double error_sq = 0.0, norm_sq = 0.0;
  int off = 0;
  for (size_t i = 0; i < store.num_params(); ++i) {
    // The step nearest to the backward's value: a kink spoils one step, a bug all of them.
    double numeric = 0.0;
    for (float step : {1e-3f, 2e-4f}) {
      const double d = central_difference(store.params()[i], step);
      if (step == 1e-3f || std::fabs(d - analytic[i]) < std::fabs(numeric - analytic[i])) {
        numeric = d;
      }
    }
    error_sq += (analytic[i] - numeric) * (analytic[i] - numeric);
    norm_sq += numeric * numeric;
    if (std::fabs(analytic[i] - numeric) > 2e-3 + 2e-2 * std::fabs(numeric)) ++off;
  }
  const double relative_error = std::sqrt(error_sq / norm_sq);
  std::printf("relative error %g, %d of %zu parameters off\n", relative_error, off,
              store.num_params());
  EXPECT_LT(relative_error, 5e-2);
  EXPECT_LE(off, static_cast<int>(store.num_params() / 20));
}

// The loss is the caller's optional last call: training plans end with it, evaluation (and
// prediction) plans at the logits, with no labels to fill.
TEST(Plan, OnlyPlansWithALossHaveLabelsAndALoss) {
  Replica replica(testing::tiny_resnet(kClasses));
  Plan& train = replica.plan_for(Shape{2, 8, 8, 3}, PlanMode::kTrain, &kLoss);
  EXPECT_EQ(train.layers().back(), &kLoss);
  Plan& eval = replica.plan_for(Shape{2, 8, 8, 3}, PlanMode::kEval);
  EXPECT_STREQ(eval.layers().back()->type(), "Linear");
  EXPECT_THROW(eval.labels(), Error);
  EXPECT_THROW(eval.loss(), Error);
}

// The image of a bfloat16 plan whose convolution reads it is stored in bfloat16: set_images
// writes each image given, rounded, and leaves the others alone.
TEST(Plan, SetImagesRoundsTheImageOfABFloat16Plan) {
  for (Precision precision : {Precision::kFloat32, Precision::kBFloat16}) {
    Replica replica(testing::tiny_resnet(kClasses), /*kernel_threads=*/1, precision);
    replica.store().initialize(3);
    Plan& plan = replica.plan_for(Shape{3, 6, 6, 3}, PlanMode::kEval);
    const TensorView input = plan.input();
    const bool rounded = precision == Precision::kBFloat16;
    ASSERT_EQ(input.type, precision);
    const int64_t image = input.numel() / 3;
    const std::vector<float> first = testing::random_floats(input.numel(), 8);
    const std::vector<float> second = testing::random_floats(image, 9);
    plan.set_images(0, 3, first.data());
    plan.set_images(1, 1, second.data());
    for (int64_t i = 0; i < input.numel(); ++i) {
      const float given = i / image == 1 ? second[i - image] : first[i];
      const float stored = rounded ? to_float(input.bf16()[i]) : input.f32()[i];
      ASSERT_EQ(stored, rounded ? round_to_bfloat16(given) : given) << "element " << i;
    }
  }
}

// An eval plan keeps no activation for a backward and has no gradients.
TEST(Plan, EvalPlansAreSmallerThanTrainingPlans) {
  Replica replica(testing::tiny_resnet(kClasses));
  const size_t train =
      replica.plan_for(Shape{4, 16, 16, 3}, PlanMode::kTrain, &kLoss).arena_bytes();
  const size_t eval = replica.plan_for(Shape{4, 16, 16, 3}, PlanMode::kEval).arena_bytes();
  EXPECT_LT(eval, train);
}

// Memory planning asks for arena sizes without compiling: they must be the compiled plans'.
TEST(Plan, ArenaBytesForIsTheCompiledPlansArena) {
  const std::shared_ptr<const Graph> graph = testing::tiny_resnet(kClasses);
  Replica replica(graph);
  for (const Shape& input : {Shape{1, 8, 8, 3}, Shape{5, 16, 16, 3}}) {
    for (PlanMode mode : {PlanMode::kTrain, PlanMode::kEval}) {
      const Layer* loss = mode == PlanMode::kTrain ? &kLoss : nullptr;
      EXPECT_EQ(Plan::arena_bytes_for(*graph, input, mode, loss, /*kernel_threads=*/1,
                                      Precision::kFloat32),
                replica.plan_for(input, mode, loss).arena_bytes())
          << input.str();
    }
  }
}

TEST(Plan, IsCompiledOncePerShapeAndMode) {
  Replica replica(testing::tiny_resnet(kClasses));
  Plan& a = replica.plan_for(Shape{2, 8, 8, 3}, PlanMode::kTrain, &kLoss);
  Plan& b = replica.plan_for(Shape{2, 8, 8, 3}, PlanMode::kTrain, &kLoss);
  EXPECT_EQ(&a, &b);
  replica.plan_for(Shape{1, 8, 8, 3}, PlanMode::kTrain, &kLoss);
  replica.plan_for(Shape{2, 8, 8, 3}, PlanMode::kEval);
  EXPECT_EQ(replica.compiled_plans(), 3);
}

TEST(Plan, TrainingUpdatesBatchNormStatisticsAndEvalUsesThem) {
  Replica replica(testing::tiny_resnet(kClasses));
  ParamStore& store = replica.store();
  store.initialize(3);
  const ParamEntry* mean = store.find("bn1.running_mean");
  const ParamEntry* count = store.find("bn1.num_batches_tracked");
  ASSERT_NE(mean, nullptr);
  ASSERT_NE(count, nullptr);

  Plan& eval = replica.plan_for(Shape{2, 8, 8, 3}, PlanMode::kEval);
  fill_image(eval, 5);
  eval.forward(Exec{});
  EXPECT_EQ(*store.counter(*count), 0);
  EXPECT_EQ(store.data(*mean)[0], 0.0f);

  Plan& train = replica.plan_for(Shape{2, 8, 8, 3}, PlanMode::kTrain, &kLoss);
  fill_batch(train, 5);
  train.forward(Exec{});
  train.forward(Exec{});
  EXPECT_EQ(*store.counter(*count), 2);
  EXPECT_NE(store.data(*mean)[0], 0.0f);
}

// A layer as it is, except that a plan must keep its output instead of rebuilding it.
class KeepsOutput : public Layer {
 public:
  // in_place: concatenations still hold values in place (Layer::writes_columns).
  explicit KeepsOutput(const Layer& inner, bool in_place = false)
      : Layer(inner.name()), inner_(inner), in_place_(in_place) {}
  const char* type() const override { return inner_.type(); }
  std::vector<ParamSpec> param_specs() const override { return inner_.param_specs(); }
  Shape output_shape(const std::vector<Shape>& inputs) const override {
    return inner_.output_shape(inputs);
  }
  size_t saved_floats(const std::vector<Shape>& inputs) const override {
    return inner_.saved_floats(inputs);
  }
  size_t workspace_floats(
      const std::vector<Shape>& inputs,
      const std::vector<std::optional<ElementType>>& gradient_types) const override {
    return inner_.workspace_floats(inputs, gradient_types);
  }
  bool backward_reads_input(int slot) const override { return inner_.backward_reads_input(slot); }
  bool backward_reads_output() const override { return inner_.backward_reads_output(); }
  bool writes_bfloat16() const override { return inner_.writes_bfloat16(); }
  bool reads_bfloat16(int slot) const override { return inner_.reads_bfloat16(slot); }
  bool backward_in_place(int slot) const override { return inner_.backward_in_place(slot); }
  bool backward_adds(int slot, const std::vector<Shape>& inputs,
                     const std::vector<std::optional<ElementType>>& gradient_types) const override {
    return inner_.backward_adds(slot, inputs, gradient_types);
  }
  bool writes_columns() const override { return in_place_ && inner_.writes_columns(); }
  bool is_concatenation() const override { return in_place_ && inner_.is_concatenation(); }
  void forward(const LayerCall& s) const override { inner_.forward(s); }
  void backward(const LayerCall& s) const override { inner_.backward(s); }

 private:
  const Layer& inner_;
  bool in_place_;
};

// `graph` with every layer wrapped in KeepsOutput.
std::shared_ptr<const Graph> keeping_outputs(const Graph& graph, bool in_place) {
  auto kept = std::make_shared<Graph>(graph.input_channels());
  for (const Node& node : graph.nodes()) {
    kept->add(std::make_unique<KeepsOutput>(*node.layer, in_place), node.inputs);
  }
  return kept;
}

// The loss and every parameter gradient of one training step on a batch drawn from `seed`.
std::vector<float> step_results(Replica& replica, Plan& plan, uint32_t seed) {
  fill_batch(plan, seed);
  replica.store().zero_grads();
  plan.forward(Exec{});
  std::vector<float> result = {plan.loss()};
  plan.backward(Exec{});
  result.insert(result.end(), replica.store().grads(),
                replica.store().grads() + replica.store().num_params());
  return result;
}

std::vector<float> loss_and_grads(std::shared_ptr<const Graph> graph,
                                  Precision precision = Precision::kFloat32) {
  Replica replica(std::move(graph), 1, precision);
  replica.store().initialize(5);
  return step_results(replica, replica.plan_for(Shape{3, 8, 8, 3}, PlanMode::kTrain, &kLoss), 17);
}

// Backward reports every call as it finishes it, the loss first, and from then on the gradients
// of that node and all later ones (first_param on) are final: what a gradient bucket relies on
// to be summed while backward goes on.
TEST(Plan, BackwardReportsEachCallOnceItsGradientsAreFinal) {
  Replica replica(testing::tiny_resnet(kClasses));
  replica.store().initialize(5);
  ParamStore& store = replica.store();
  Plan& plan = replica.plan_for(Shape{3, 8, 8, 3}, PlanMode::kTrain, &kLoss);
  const std::vector<float> loss_and_final_grads = step_results(replica, plan, 17);
  const std::vector<float> final_grads(loss_and_final_grads.begin() + 1,
                                       loss_and_final_grads.end());
  fill_batch(plan, 17);
  store.zero_grads();
  plan.forward(Exec{});
  std::vector<int> reported;
  plan.backward(Exec{}, [&](int call) {
    reported.push_back(call);
    const size_t from = store.first_param(call);
    EXPECT_TRUE(std::equal(store.grads() + from, store.grads() + store.num_params(),
                           final_grads.begin() + static_cast<std::ptrdiff_t>(from)))
        << "call " << call << ": a gradient past " << from << " changed after it was reported";
  });
  const int calls = static_cast<int>(plan.layers().size());
  ASSERT_EQ(reported.size(), static_cast<size_t>(calls));
  for (int i = 0; i < calls; ++i) EXPECT_EQ(reported[i], calls - 1 - i);
  EXPECT_EQ(store.first_param(calls - 1), store.num_params());  // the loss has no parameters
  EXPECT_EQ(store.first_param(0), 0u);
}

// Outputs that BatchNorm, ReLU, Add, ShortcutPad and a pointwise Conv2d (the bottleneck's
// conv3) rebuild for the backward give the backward the same bits as outputs kept
// from the forward, in both precisions.
TEST(Plan, RebuiltOutputsGiveTheSameGradientsAsKeptOnes) {
  const std::shared_ptr<const Graph> rebuilt = testing::tiny_resnet(kClasses);
  for (Precision precision : {Precision::kFloat32, Precision::kBFloat16}) {
    SCOPED_TRACE(name(precision));
    int rebuilding_layers = 0;
    for (const Node& node : rebuilt->nodes()) {
      rebuilding_layers += node.layer->rebuild_cost(precision) != Layer::Rebuild::kNo;
    }
    EXPECT_GE(rebuilding_layers, 10);
    const std::vector<float> a = loss_and_grads(rebuilt, precision);
    const std::vector<float> b =
        loss_and_grads(keeping_outputs(*rebuilt, /*in_place=*/false), precision);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));
  }
}

// The eval logits, then the loss and every gradient of a training step.
std::vector<float> logits_loss_and_grads(std::shared_ptr<const Graph> graph) {
  Replica replica(std::move(graph));
  replica.store().initialize(5);
  Plan& eval = replica.plan_for(Shape{3, 8, 8, 3}, PlanMode::kEval, nullptr);
  fill_image(eval, 17);
  eval.forward(Exec{});
  const TensorView logits = eval.logits();
  std::vector<float> result(logits.f32(), logits.f32() + logits.numel());
  const std::vector<float> step =
      step_results(replica, replica.plan_for(Shape{3, 8, 8, 3}, PlanMode::kTrain, &kLoss), 17);
  result.insert(result.end(), step.begin(), step.end());
  return result;
}

// Concatenations that hold their inputs in place, whether the plan rebuilds the held values for
// the backward (into dense copies, beside gradients in the holder's columns) or keeps them, give
// the bits of concatenations that copy.
TEST(Plan, ConcatenationsInPlaceGiveTheSameResultsAsCopies) {
  const std::shared_ptr<const Graph> graph = testing::tiny_inception(kClasses);
  const CallList calls = list_calls(*graph, &kLoss);
  const std::vector<bool> rebuilt = choose_rebuilt_values(
      calls, infer_shapes(*graph, calls, Shape{3, 8, 8, 3}),
      element_types(calls, Precision::kFloat32), PlanMode::kTrain, Precision::kFloat32);
  EXPECT_TRUE(rebuilt[3] && rebuilt[5]) << "the plan rebuilds a.bn and b.relu, held in place";
  const std::vector<float> copies = logits_loss_and_grads(keeping_outputs(*graph, false));
  for (const auto& in_place : {graph, keeping_outputs(*graph, /*in_place=*/true)}) {
    const std::vector<float> results = logits_loss_and_grads(in_place);
    ASSERT_EQ(results.size(), copies.size());
    EXPECT_EQ(0, std::memcmp(results.data(), copies.data(), copies.size() * sizeof(float)));
  }
}

// A bfloat16 replica's plans round what their convolutions and Linear layer multiply: the
// step's loss and gradients move off float32's, by little. Gradients are compared as a whole
// (their cosine): BatchNorm over a batch of 3 at 8x8 subtracts near-equal terms, so single
// gradients of the first layers move by up to half their size under 8-bit operands, while the
// vector as a whole keeps its direction.
TEST(Plan, BFloat16PlansMultiplyInBFloat16) {
  const std::shared_ptr<const Graph> graph = testing::tiny_resnet(kClasses);
  const std::vector<float> f32 = loss_and_grads(graph, Precision::kFloat32);
  const std::vector<float> bf16 = loss_and_grads(graph, Precision::kBFloat16);
  ASSERT_EQ(f32.size(), bf16.size());
  EXPECT_NE(0, std::memcmp(f32.data(), bf16.data(), f32.size() * sizeof(float)));
  EXPECT_NEAR(bf16[0], f32[0], 1e-2 * std::fabs(f32[0])) << "loss";
  double dot = 0.0, f32_norm = 0.0, bf16_norm = 0.0;
  for (size_t i = 1; i < f32.size(); ++i) {
    dot += double{f32[i]} * bf16[i];
    f32_norm += double{f32[i]} * f32[i];
    bf16_norm += double{bf16[i]} * bf16[i];
  }
  EXPECT_GT(dot / std::sqrt(f32_norm * bf16_norm), 0.995) << "cosine of the gradients";
}

// ResNet-50 training at 224x224 keeps from the forward to the backward only what no layer can
// rebuild cheaply, most convolutions' outputs. The arena's growth per image, from batch 2 to 4,
// leaves out what does not grow with the batch (the kernel threads' scratch, twice as large with
// AVX-512's wider tiles). The bounds sit just above what the plans take: a plan that keeps every
// activation (as PyTorch does), rebuilds only element-wise outputs, or stops rebuilding the
// stem's output or layer1.0's pointwise convolutions, or keeps the block outputs whose rebuilding
// chains, exceeds them. In bfloat16 what convolutions and BatchNorm write for each other, and its
// gradients, take half, and plans rebuild layer2's pointwise expansions too, without which the
// bfloat16 bound fails.
TEST(Plan, Resnet50TrainingNeedsUnder38MegabytesPerImage) {
  for (Precision precision : {Precision::kFloat32, Precision::kBFloat16}) {
    SCOPED_TRACE(name(precision));
    Replica replica(build_model("resnet50", 1000), 1, precision);
    const size_t two =
        replica.plan_for(Shape{2, 224, 224, 3}, PlanMode::kTrain, &kLoss).arena_bytes();
    const size_t four =
        replica.plan_for(Shape{4, 224, 224, 3}, PlanMode::kTrain, &kLoss).arena_bytes();
    const size_t mb = precision == Precision::kFloat32 ? 38 : 18;
    EXPECT_LT((four - two) / 2, mb * 1000 * 1000);
  }
}

// A released arena costs no memory until the next forward, which rebuilds everything in it.
TEST(Plan, AReleasedPlanComputesTheSameStep) {
  Replica replica(testing::tiny_resnet(kClasses));
  replica.store().initialize(2);
  Plan& plan =
      replica.plan_for(Shape{8, 16, 16, 3}, PlanMode::kTrain, &kLoss);  // an arena of many pages
  const std::vector<float> before = step_results(replica, plan, 4);
  replica.release_plan_memory();
  EXPECT_EQ(step_results(replica, plan, 4), before);
}

// The arena holds every kernel thread's scratch, so a plan runs on at most the threads it was
// compiled for.
TEST(Plan, HoldsItsKernelThreadsScratch) {
  const std::shared_ptr<const Graph> graph = testing::tiny_resnet(kClasses);
  const Shape input{2, 8, 8, 3};
  EXPECT_GE(
      Plan::arena_bytes_for(*graph, input, PlanMode::kEval, nullptr, 3, Precision::kFloat32) -
          Plan::arena_bytes_for(*graph, input, PlanMode::kEval, nullptr, 1, Precision::kFloat32),
      2 * kernels::thread_scratch_floats() * sizeof(float));
  Replica replica(graph, /*kernel_threads=*/2);
  Plan& plan = replica.plan_for(input, PlanMode::kEval);
  testing::PoolExec three(3);
  EXPECT_THROW(plan.forward(three.exec()), Error);
}

TEST(Plan, ResultsDoNotDependOnTheThreadCount) {
  auto run = [](const Exec& ex) {
    Replica replica(testing::tiny_resnet(kClasses), /*kernel_threads=*/2);
    replica.store().initialize(9);
    Plan& plan = replica.plan_for(Shape{4, 8, 8, 3}, PlanMode::kTrain, &kLoss);
    fill_batch(plan, 13);
    plan.forward(ex);
    plan.backward(ex);
    return std::vector<float>(replica.store().grads(),
                              replica.store().grads() + replica.store().num_params());
  };
  testing::PoolExec two(2);
  testing::expect_close(run(Exec{}), run(two.exec()), 1e-5f, 1e-6f, "grads");
}

}  // namespace
}  // namespace xtrain
