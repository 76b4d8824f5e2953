#include "lib/graph/plan_phases.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "lib/base/check.h"
#include "lib/graph/graph_builder.h"
#include "lib/kernels/conv2d.h"
#include "lib/nn/cross_entropy_loss.h"
#include "lib/tensor/aligned_buffer.h"
#include "models/registry.h"
#include "tests/graph/tiny_inception.h"
#include "tests/graph/tiny_resnet.h"

namespace xtrain {
namespace {

const CrossEntropyLoss kLoss("loss", /*label_smoothing=*/0.0f);

// Values: 0 image, 1 conv, 2 relu, 3 add(relu, conv), 4 avgpool, 5 fc (the logits), 6 the loss.
// The conv output has two readers; relu and add can be rebuilt in one pass. The image has 5
// channels, so that the conv is not a stem (which plans rebuild: Conv2d::rebuild_cost).
constexpr int kResidualNetChannels = 5;
std::shared_ptr<const Graph> residual_net() {
  GraphBuilder g(kResidualNetChannels);
  const Value conv = g.conv2d("conv", g.input(), 4, 3, 1, 1);
  const Value sum = g.add(g.relu(conv), conv);
  g.linear("fc", g.global_avg_pool_flatten("avgpool", sum), 5);
  return g.finish();
}

// The lifetimes of the rebuild rule alone, before choose_rebuilt_values keeps any value.
Lifetimes rule_lifetimes(const CallList& calls, PlanMode mode) {
  return plan_lifetimes(calls, mode, rebuildable_values(calls, mode, Precision::kFloat32));
}

// The value that layer `name` writes.
int value_of(const CallList& calls, const std::string& name) {
  for (int v = 1; v < calls.num_values(); ++v) {
    if (calls.layers[v - 1]->name() == name) return v;
  }
  throw std::invalid_argument(name);
}

bool same(const Lifetime& live, int first, int last) {
  return live.first == first && live.last == last;
}

TEST(PlanPhases, CallsEndAtTheLogitsOrWithTheLoss) {
  const std::shared_ptr<const Graph> graph = residual_net();
  const CallList eval = list_calls(*graph, nullptr);
  EXPECT_EQ(eval.num_calls(), 5);
  EXPECT_EQ(eval.logits, 5);
  EXPECT_FALSE(eval.has_loss);
  EXPECT_EQ(eval.inputs[2], (std::vector<int>{2, 1}));

  const CallList train = list_calls(*graph, &kLoss);
  EXPECT_EQ(train.num_calls(), 6);
  EXPECT_TRUE(train.has_loss);
  EXPECT_EQ(train.layers.back(), &kLoss);
  EXPECT_EQ(train.inputs.back(), (std::vector<int>{5}));
}

TEST(PlanPhases, ShapesEndWithTheLossWhenThereIsOne) {
  const std::shared_ptr<const Graph> graph = residual_net();
  const Shape image{2, 6, 6, kResidualNetChannels};
  const std::vector<Shape> eval = infer_shapes(*graph, list_calls(*graph, nullptr), image);
  ASSERT_EQ(eval.size(), 6u);
  EXPECT_EQ(eval[1], (Shape{2, 6, 6, 4}));
  EXPECT_EQ(eval[5], (Shape{2, 5}));
  const std::vector<Shape> train = infer_shapes(*graph, list_calls(*graph, &kLoss), image);
  ASSERT_EQ(train.size(), 7u);
  EXPECT_EQ(train[6], (Shape{1}));
  EXPECT_THROW(infer_shapes(*graph, list_calls(*graph, nullptr), Shape{2, 6, 6, 1}), Error);
}

TEST(PlanPhases, ModelsMustEndInLogits) {
  GraphBuilder g(3);
  g.conv2d("conv", g.input(), 4, 3, 1, 1);
  const std::shared_ptr<const Graph> graph = g.finish();
  EXPECT_THROW(infer_shapes(*graph, list_calls(*graph, nullptr), Shape{1, 4, 4, 3}), Error);
}

TEST(PlanPhases, EvalValuesLiveUntilTheirLastReaderAndHaveNoGradients) {
  const Lifetimes t = rule_lifetimes(list_calls(*residual_net(), nullptr), PlanMode::kEval);
  EXPECT_EQ(t.num_ticks, 5);
  EXPECT_TRUE(same(t.values[0], 0, 4));  // the image: the caller's, throughout
  EXPECT_TRUE(same(t.values[1], 0, 2));  // read by relu (1) and add (2)
  EXPECT_TRUE(same(t.values[2], 1, 2));
  EXPECT_TRUE(same(t.values[5], 4, 4));  // the logits, read by the caller
  for (bool rebuilt : t.rebuilt) EXPECT_FALSE(rebuilt);
  for (const std::vector<Lifetime>& call : t.input_gradients) {
    for (const Lifetime& live : call) EXPECT_TRUE(live.empty());
  }
}

TEST(PlanPhases, TrainingNeedsALoss) {
  EXPECT_THROW(rule_lifetimes(list_calls(*residual_net(), nullptr), PlanMode::kTrain), Error);
}

// Ticks of the training plan: forward of call i is i, its backward 11 - i.
TEST(PlanPhases, TrainingRebuildsOnePassOutputsForTheBackward) {
  const Lifetimes t = rule_lifetimes(list_calls(*residual_net(), &kLoss), PlanMode::kTrain);
  EXPECT_EQ(t.num_ticks, 12);
  // relu's output is rebuilt from the conv output for relu's backward (tick 10), which masks
  // with it: the forward's copy dies with its last forward reader, and the conv output, which
  // the rebuild reads, lives until then.
  EXPECT_TRUE(t.rebuilt[2]);
  EXPECT_TRUE(same(t.values[2], 1, 2));
  EXPECT_TRUE(same(t.rebuilt_copies[2], 10, 10));
  EXPECT_TRUE(same(t.values[1], 0, 10));
  // add's output is rebuildable, but no backward reads it: no copy.
  EXPECT_TRUE(t.rebuilt[3]);
  EXPECT_TRUE(t.rebuilt_copies[3].empty());
  // The convolution's output is kept; the pooled value is kept for fc's backward (tick 7).
  EXPECT_FALSE(t.rebuilt[1]);
  EXPECT_TRUE(same(t.values[4], 3, 7));
  EXPECT_TRUE(same(t.saved[0], 0, 11));
}

// A cheap convolution (pointwise, few input channels) is rebuilt from an input at hand: kept, or
// rebuilt in one pass from kept values; never from another rebuilt convolution's output, which
// would bring back a chain of activations.
TEST(PlanPhases, CheapConvolutionsAreRebuiltOnlyFromInputsAtHand) {
  GraphBuilder g(kResidualNetChannels);
  const Value kept = g.conv2d("kept", g.input(), 8, 3, 1, 1);
  const Value from_one_pass = g.conv2d("from_one_pass", g.relu(kept), 8, 1, 1, 0);
  const Value from_kept = g.conv2d("from_kept", kept, 8, 1, 1, 0);
  const Value from_rebuilt = g.conv2d("from_rebuilt", from_one_pass, 8, 1, 1, 0);
  g.linear("fc", g.global_avg_pool_flatten("avgpool", g.add(from_kept, from_rebuilt)), 5);
  const std::shared_ptr<const Graph> graph = g.finish();
  const CallList calls = list_calls(*graph, &kLoss);
  const std::vector<bool> rule = rebuildable_values(calls, PlanMode::kTrain, Precision::kFloat32);
  EXPECT_FALSE(rule[value_of(calls, "kept")]);
  EXPECT_TRUE(rule[value_of(calls, "from_one_pass")]);
  EXPECT_TRUE(rule[value_of(calls, "from_kept")]);
  EXPECT_FALSE(rule[value_of(calls, "from_rebuilt")]);
}

// A float32 plan rebuilds pointwise convolutions over up to 64 input channels; a bfloat16 plan,
// which multiplies twice as fast, those over up to 128 (ResNet-50's layer2 expansions).
TEST(PlanPhases, BFloat16PlansRebuildPointwiseConvolutionsOverTwiceTheChannels) {
  GraphBuilder g(kResidualNetChannels);
  Value sum;
  for (int channels : {64, 128, 129}) {
    const Value kept = g.conv2d("kept" + std::to_string(channels), g.input(), channels, 3, 1, 1);
    const Value pointwise = g.conv2d("over" + std::to_string(channels), kept, 8, 1, 1, 0);
    sum = channels == 64 ? pointwise : g.add(sum, pointwise);
  }
  g.linear("fc", g.global_avg_pool_flatten("avgpool", sum), 5);
  const std::shared_ptr<const Graph> graph = g.finish();
  const CallList calls = list_calls(*graph, &kLoss);
  const std::vector<bool> f32 = rebuildable_values(calls, PlanMode::kTrain, Precision::kFloat32);
  const std::vector<bool> bf16 = rebuildable_values(calls, PlanMode::kTrain, Precision::kBFloat16);
  EXPECT_TRUE(f32[value_of(calls, "over64")]);
  EXPECT_FALSE(f32[value_of(calls, "over128")]);
  EXPECT_TRUE(bf16[value_of(calls, "over64")]);
  EXPECT_TRUE(bf16[value_of(calls, "over128")]);
  EXPECT_FALSE(bf16[value_of(calls, "over129")]);
}

TEST(PlanPhases, AValueWithTwoReadersSumsTheirGradientsIntoTheFirstReaders) {
  const Lifetimes t = rule_lifetimes(list_calls(*residual_net(), &kLoss), PlanMode::kTrain);
  EXPECT_TRUE(t.input_gradients[0][0].empty());  // nothing needs d(image)
  // The conv output is read by relu (call 1, its first reader) and add (call 2, slot 1).
  EXPECT_EQ(t.first_reader[1], 1);
  EXPECT_TRUE(same(t.input_gradients[1][0], 10, 11));  // the total, until conv's backward
  EXPECT_TRUE(same(t.input_gradients[2][1], 9, 10));   // added into it after relu's backward
  EXPECT_TRUE(same(t.input_gradients[5][0], 6, 7));    // d(logits), from the loss to fc
}

// Buffers whose lifetimes meet must not share a byte, or one layer would overwrite what another
// still reads; buffers that never meet should share, or the arena grows with the depth.
void expect_live_buffers_disjoint(const ArenaLayout& layout) {
  const std::vector<ArenaBuffer>& b = layout.planner.buffers();
  size_t total = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    const size_t end_i = b[i].offset + AlignedBuffer::round_up(b[i].floats);
    EXPECT_LE(end_i, AlignedBuffer::round_up(layout.floats));
    total += AlignedBuffer::round_up(b[i].floats);
    for (size_t j = i + 1; j < b.size(); ++j) {
      if (b[i].floats == 0 || b[j].floats == 0) continue;
      if (b[i].last < b[j].first || b[j].last < b[i].first) continue;
      const size_t end_j = b[j].offset + AlignedBuffer::round_up(b[j].floats);
      EXPECT_TRUE(end_i <= b[j].offset || end_j <= b[i].offset)
          << "buffers " << i << " and " << j << " are live together and overlap";
    }
  }
  EXPECT_LT(layout.floats, total) << "no buffer shares memory";
}

ArenaLayout layout_of(const Graph& graph, const Shape& image, PlanMode mode, const Layer* loss,
                      Precision precision = Precision::kFloat32) {
  const CallList calls = list_calls(graph, loss);
  return place_buffers(calls, infer_shapes(graph, calls, image), element_types(calls, precision),
                       rule_lifetimes(calls, mode), /*kernel_threads=*/2);
}

// Values: 0 image, 1 conv (read by BatchNorm alone), 2 batchnorm (read by a conv), 3 conv (read
// by BatchNorm and by a ReLU), 4 batchnorm (read by the add), 5 relu, 6 add, 7 avgpool, 8 fc (the
// logits).
std::shared_ptr<const Graph> two_convs() {
  GraphBuilder g(3);
  const Value first = g.batchnorm("bn1", g.conv2d("conv1", g.input(), 16, 3, 1, 1));
  const Value second = g.conv2d("conv2", first, 16, 3, 1, 1);
  const Value normalized = g.batchnorm("bn2", second);
  const Value sum = g.add(normalized, g.relu(second));
  g.linear("fc", g.global_avg_pool_flatten("avgpool", sum), 5);
  return g.finish();
}

// A bfloat16 plan stores in bfloat16 what convolutions and BatchNorm write for each other, and
// the image a convolution reads; a value another layer reads too, and everything in a float32
// plan, stay float32.
TEST(PlanPhases, BFloat16PlansStoreWhatConvolutionsAndBatchNormPassInBFloat16) {
  const std::shared_ptr<const Graph> graph = two_convs();
  const CallList calls = list_calls(*graph, &kLoss);
  const std::vector<ElementType> types = element_types(calls, Precision::kBFloat16);
  ASSERT_EQ(types.size(), 10u);
  for (int v = 0; v < 10; ++v) {
    const bool bf16 = v == Graph::kImage || v == 1 || v == 2;
    EXPECT_EQ(types[v], bf16 ? ElementType::kBFloat16 : ElementType::kFloat32) << "value " << v;
  }
  for (ElementType t : element_types(calls, Precision::kFloat32)) {
    EXPECT_EQ(t, ElementType::kFloat32);
  }
  const ArenaLayout f32 = layout_of(*graph, Shape{2, 8, 8, 3}, PlanMode::kTrain, &kLoss);
  const ArenaLayout bf16 =
      layout_of(*graph, Shape{2, 8, 8, 3}, PlanMode::kTrain, &kLoss, Precision::kBFloat16);
  EXPECT_EQ(bf16.planner.buffer(bf16.values[1]).floats, 2u * 8 * 8 * 16 / 2);
  EXPECT_EQ(f32.planner.buffer(f32.values[1]).floats, 2u * 8 * 8 * 16);
  EXPECT_EQ(bf16.planner.buffer(bf16.values[Graph::kImage]).floats, 2u * 8 * 8 * 3 / 2);
  expect_live_buffers_disjoint(bf16);
}

// A convolution's scratch holds the float32 chunk a bfloat16 dx is summed in only where a
// backward writes that dx: in training the 1x7 conv's (Inception's), never the stem's (the image
// has no gradient), none in evaluation.
TEST(PlanPhases, ScratchHoldsARoundingChunkOnlyForAGradientWritten) {
  GraphBuilder g(3);
  const Value features = g.conv2d_rect("1x7", g.conv2d("stem", g.input(), 16, 7, 2, 3), 16, 1, 7,
                                       /*stride=*/1, /*pad_h=*/0, /*pad_w=*/3);
  g.linear("fc", g.global_avg_pool_flatten("avgpool", features), 5);
  const std::shared_ptr<const Graph> graph = g.finish();
  ASSERT_EQ(element_types(list_calls(*graph, &kLoss), Precision::kBFloat16)[1],
            ElementType::kBFloat16);
  auto scratch = [](const kernels::Conv2dShape& s, std::optional<ElementType> dx_type) {
    return kernels::conv2d_workspace_floats(s, dx_type);
  };
  const kernels::Conv2dShape stem{2, 32, 32, 3, 16, 7, 7, 2, 3, 3};
  const kernels::Conv2dShape conv{2, 16, 16, 16, 16, 1, 7, 1, 0, 3};
  ASSERT_GT(scratch(stem, ElementType::kBFloat16), scratch(stem, std::nullopt));
  ASSERT_GT(scratch(conv, ElementType::kBFloat16), scratch(conv, std::nullopt));

  const ArenaLayout train =
      layout_of(*graph, Shape{2, 32, 32, 3}, PlanMode::kTrain, &kLoss, Precision::kBFloat16);
  EXPECT_EQ(train.planner.buffer(train.workspace).floats,
            std::max(scratch(stem, std::nullopt), scratch(conv, ElementType::kBFloat16)));
  const ArenaLayout eval =
      layout_of(*graph, Shape{2, 32, 32, 3}, PlanMode::kEval, nullptr, Precision::kBFloat16);
  EXPECT_EQ(eval.planner.buffer(eval.workspace).floats,
            std::max(scratch(stem, std::nullopt), scratch(conv, std::nullopt)));
}

// Values: 0 image, 1 conv, 2 bn, 3 relu, 4 avgpool, 5 fc, 6 the loss. BatchNorm writes its
// input's gradient over its output's where the two have one element type; a ReLU (call 2) does
// not offer to.
TEST(PlanPhases, BatchNormWritesItsInputGradientOverItsOutputGradient) {
  GraphBuilder g(3);
  const Value normalized = g.batchnorm("bn", g.conv2d("conv", g.input(), 16, 3, 1, 1));
  g.linear("fc", g.global_avg_pool_flatten("avgpool", g.relu(normalized)), 5);
  const std::shared_ptr<const Graph> graph = g.finish();
  const CallList calls = list_calls(*graph, &kLoss);

  const ArenaLayout f32 = layout_of(*graph, Shape{2, 8, 8, 3}, PlanMode::kTrain, &kLoss);
  const int shared = f32.gradients[2];
  EXPECT_EQ(f32.input_gradients[1][0], shared);
  // From the ReLU's backward (call 2, tick 9), which writes bn's output gradient, to the conv's
  // (call 0, tick 11), which reads bn's input gradient.
  EXPECT_EQ(f32.planner.buffer(shared).first, 9);
  EXPECT_EQ(f32.planner.buffer(shared).last, 11);
  EXPECT_NE(f32.input_gradients[2][0], f32.gradients[3]);
  expect_live_buffers_disjoint(f32);

  // In bfloat16 the conv output is bfloat16 and bn's output, which the ReLU reads, float32.
  const std::vector<ElementType> types = element_types(calls, Precision::kBFloat16);
  ASSERT_NE(types[1], types[2]);
  const ArenaLayout bf16 =
      layout_of(*graph, Shape{2, 8, 8, 3}, PlanMode::kTrain, &kLoss, Precision::kBFloat16);
  EXPECT_NE(bf16.input_gradients[1][0], bf16.gradients[2]);
  expect_live_buffers_disjoint(bf16);
}

// Calls: 0 stem, 1 pointwise conv, 2 bn (BatchNorm + Add + ReLU of the pointwise conv's output and
// the stem's), 3 3x3 conv, 4 add(bn, 3x3), then avgpool, fc and the loss. The pointwise conv, the
// stem's first reader, adds its input gradient into bn's residual gradient (the last reader's: its
// backward runs first), and that buffer is the stem's total; the 3x3 conv, the first reader of
// bn's output, writes its own. Both precisions (in bfloat16 the stem's output is stored so).
TEST(PlanPhases, APointwiseFirstReaderAddsIntoTheLastReadersGradient) {
  GraphBuilder g(3);
  const Value stem = g.conv2d("stem", g.input(), 16, 3, 1, 1);
  const Value sum = g.batchnorm_add_relu("bn", g.conv2d("pointwise", stem, 16, 1, 1, 0), stem);
  g.linear("fc",
           g.global_avg_pool_flatten("avgpool", g.add(sum, g.conv2d("3x3", sum, 16, 3, 1, 1))), 5);
  const std::shared_ptr<const Graph> graph = g.finish();
  ASSERT_EQ(element_types(list_calls(*graph, &kLoss), Precision::kBFloat16)[1],
            ElementType::kBFloat16);
  for (Precision precision : {Precision::kFloat32, Precision::kBFloat16}) {
    const ArenaLayout layout =
        layout_of(*graph, Shape{2, 8, 8, 3}, PlanMode::kTrain, &kLoss, precision);
    EXPECT_EQ(layout.input_gradients[1][0], layout.input_gradients[2][1]);
    EXPECT_TRUE(layout.adds_to_gradients[1][0]);
    EXPECT_FALSE(layout.adds_to_gradients[2][1]);
    EXPECT_EQ(layout.gradients[1], layout.input_gradients[2][1]);
    EXPECT_NE(layout.input_gradients[3][0], layout.input_gradients[4][0]);
    EXPECT_FALSE(layout.adds_to_gradients[3][0]);
    expect_live_buffers_disjoint(layout);
  }
}

TEST(PlanPhases, EveryBufferHasItsPlace) {
  const ArenaLayout layout =
      layout_of(*residual_net(), Shape{2, 6, 6, kResidualNetChannels}, PlanMode::kTrain, &kLoss);
  EXPECT_EQ(layout.input_gradients[0][0], -1);  // no lifetime, no buffer
  EXPECT_EQ(layout.gradients[1], layout.input_gradients[1][0]);
  EXPECT_NE(layout.rebuilt_copies[2], -1);
  EXPECT_EQ(layout.rebuilt_copies[3], -1);
}

// tiny_inception's branches, and the nested concatenation's parts, are held in their
// concatenation's columns; the stem, which every branch reads, is not, nor a value a
// concatenation reads twice.
TEST(PlanPhases, ConcatenationsHoldTheValuesOnlyTheyRead) {
  const std::shared_ptr<const Graph> graph = testing::tiny_inception(5);
  const CallList calls = list_calls(*graph, &kLoss);
  std::vector<int> expected(calls.num_values(), -1);
  expected[3] = expected[5] = expected[6] = expected[11] = 12;
  expected[8] = expected[10] = 11;
  EXPECT_EQ(calls.held_by, expected);
  const std::vector<int64_t> columns =
      held_columns(calls, infer_shapes(*graph, calls, Shape{2, 8, 8, 3}));
  for (auto [value, column] : {std::pair{3, 0}, {5, 6}, {6, 11}, {11, 19}, {8, 0}, {10, 3}}) {
    EXPECT_EQ(columns[value], column) << "value " << value;
  }

  GraphBuilder g(3);
  const Value x = g.relu(g.conv2d("conv", g.input(), 4, 3, 1, 1));
  g.linear("fc", g.global_avg_pool_flatten("avgpool", g.concat("cat", {x, x})), 5);
  for (int holder : list_calls(*g.finish(), &kLoss).held_by) EXPECT_EQ(holder, -1);
}

// A held value has no lifetime and no buffer of its own, nor has its gradient: its holder's
// buffers cover them, from the first branch's forward (a.bn, call 2) on, and the holder's gradient
// from its reader's backward (head.conv, call 12: tick 33 - 12) to the first branch's.
TEST(PlanPhases, HeldValuesLiveInTheirHoldersBuffers) {
  const std::shared_ptr<const Graph> graph = testing::tiny_inception(5);
  const CallList calls = list_calls(*graph, &kLoss);
  const std::vector<Shape> shapes = infer_shapes(*graph, calls, Shape{2, 8, 8, 3});
  const std::vector<ElementType> types = element_types(calls, Precision::kFloat32);
  const Lifetimes t = plan_lifetimes(
      calls, PlanMode::kTrain,
      choose_rebuilt_values(calls, shapes, types, PlanMode::kTrain, Precision::kFloat32));
  const ArenaLayout layout = place_buffers(calls, shapes, types, t, /*kernel_threads=*/1);
  for (int v : {3, 5, 6, 8, 10, 11}) {
    EXPECT_TRUE(t.values[v].empty()) << "value " << v;
    EXPECT_EQ(layout.values[v], -1) << "value " << v;
    EXPECT_EQ(layout.gradients[v], -1) << "value " << v;
  }
  EXPECT_EQ(t.values[12].first, 2);
  EXPECT_GE(t.values[12].last, 33 - 12);
  EXPECT_TRUE(same(t.input_gradients[12][0], 33 - 12, 33 - 2));
  expect_live_buffers_disjoint(layout);
}

TEST(PlanPhases, BuffersLiveTogetherNeverShareBytes) {
  for (const std::shared_ptr<const Graph>& graph :
       {residual_net(), testing::tiny_resnet(3), testing::tiny_inception(3)}) {
    const Shape image{3, 8, 8, graph->input_channels()};
    expect_live_buffers_disjoint(layout_of(*graph, image, PlanMode::kTrain, &kLoss));
    expect_live_buffers_disjoint(layout_of(*graph, image, PlanMode::kEval, nullptr));
  }
}

// ResNet-50's stages rebuild each block's output from the one before, so the first backward that
// reads a stage's last output brings back the whole stage at once: choose_rebuilt_values keeps a
// few of those values instead (only values the rule would rebuild), and the peak of live buffers
// drops, in both precisions; an evaluation plan rebuilds nothing.
TEST(PlanPhases, KeepingSomeRebuildableValuesLowersResNet50sPeak) {
  const std::shared_ptr<const Graph> graph = build_model("resnet50", 10);
  const CallList calls = list_calls(*graph, &kLoss);
  const std::vector<Shape> shapes = infer_shapes(*graph, calls, Shape{8, 112, 112, 3});
  for (Precision precision : {Precision::kFloat32, Precision::kBFloat16}) {
    const std::vector<ElementType> types = element_types(calls, precision);
    const std::vector<bool> rule = rebuildable_values(calls, PlanMode::kTrain, precision);
    const std::vector<bool> chosen =
        choose_rebuilt_values(calls, shapes, types, PlanMode::kTrain, precision);
    int kept = 0;
    for (int v = 0; v < calls.num_values(); ++v) {
      EXPECT_TRUE(rule[v] || !chosen[v]) << "value " << v << " is not rebuildable";
      kept += rule[v] && !chosen[v];
    }
    EXPECT_GT(kept, 0);
    auto peak = [&](const std::vector<bool>& rebuilt) {
      const Lifetimes t = plan_lifetimes(calls, PlanMode::kTrain, rebuilt);
      return place_buffers(calls, shapes, types, t, 1).planner.live_peak().floats;
    };
    EXPECT_LT(peak(chosen), peak(rule));
  }
  const CallList eval = list_calls(*graph, nullptr);
  for (bool rebuilt : choose_rebuilt_values(eval, infer_shapes(*graph, eval, Shape{2, 64, 64, 3}),
                                            element_types(eval, Precision::kFloat32),
                                            PlanMode::kEval, Precision::kFloat32)) {
    EXPECT_FALSE(rebuilt);
  }
}

}  // namespace
}  // namespace xtrain
