#include "models/mnasnet.h"

#include <iterator>
#include <string>

#include "lib/base/check.h"
#include "lib/graph/graph_builder.h"
#include "models/make_divisible.h"

namespace xtrain {
namespace {

// torchvision's _BN_MOMENTUM: the paper's TensorFlow decay 0.9997 as PyTorch's momentum.
constexpr float kBatchNormMomentum = static_cast<float>(1.0 - 0.9997);
constexpr int kLastChannels = 1280;
constexpr float kDropout = 0.2f;

using Act = BatchNorm2d::Fused;

// One Conv2d (no bias, padded to keep the grid at stride 1) and its BatchNorm, at indices
// `index` and `index + 1` of the Sequential `prefix`; a fused ReLU takes the next index.
Value conv_bn(GraphBuilder& g, const std::string& prefix, int& index, Value x, int out_channels,
              int kernel_size, int stride, int groups, Act act) {
  const Value conv = g.conv2d(prefix + std::to_string(index), x, out_channels, kernel_size, stride,
                              kernel_size / 2, /*bias=*/false, groups);
  const Value out = g.batchnorm_activation(prefix + std::to_string(index + 1), conv, act,
                                           /*eps=*/1e-5f, kBatchNormMomentum);
  index += act == Act::kNothing ? 2 : 3;
  return out;
}

// _InvertedResidual: expand, depthwise, project; block(x) + x where the stride is 1 and the
// channels stay.
Value inverted_residual(GraphBuilder& g, const std::string& name, Value x, int out_channels,
                        int kernel_size, int stride, int expansion) {
  const int in_channels = g.channels(x);
  const int mid = in_channels * expansion;
  const std::string prefix = name + ".layers.";
  int index = 0;
  Value out = conv_bn(g, prefix, index, x, mid, 1, 1, 1, Act::kReLU);
  out = conv_bn(g, prefix, index, out, mid, kernel_size, stride, /*groups=*/mid, Act::kReLU);
  out = conv_bn(g, prefix, index, out, out_channels, 1, 1, 1, Act::kNothing);
  if (stride == 1 && in_channels == out_channels) return g.add(out, x);
  return out;
}

// The _stack calls: output depth (an index into the scaled depths), kernel, stride of the first
// block, expansion factor, repeats.
struct Stack {
  int depth, kernel, stride, expansion, repeats;
};
constexpr Stack kStacks[] = {{2, 3, 2, 3, 3}, {3, 5, 2, 3, 3}, {4, 5, 2, 6, 3},
                             {5, 3, 1, 6, 2}, {6, 5, 2, 6, 4}, {7, 3, 1, 6, 1}};
constexpr int kDepths[] = {32, 16, 24, 40, 80, 96, 192, 320};  // at alpha 1.0

}  // namespace

std::shared_ptr<const Graph> mnasnet(double alpha, int num_classes) {
  XTRAIN_CHECK(alpha > 0.0, "MNASNet's alpha must be > 0, got {}", alpha);
  int depths[std::size(kDepths)];
  for (size_t i = 0; i < std::size(kDepths); ++i) {
    depths[i] = make_divisible(kDepths[i] * alpha);
  }
  GraphBuilder g(/*input_channels=*/3);
  g.init_convs(WeightInit::kaiming_normal_fan_out());
  g.init_linears({WeightInit::Weight::kUniformFanOut, 0.0f, /*zero_bias=*/true});
  const std::string layers = "layers.";
  int index = 0;
  Value x = conv_bn(g, layers, index, g.input(), depths[0], 3, 2, 1, Act::kReLU);
  x = conv_bn(g, layers, index, x, depths[0], 3, 1, /*groups=*/depths[0], Act::kReLU);
  x = conv_bn(g, layers, index, x, depths[1], 1, 1, 1, Act::kNothing);
  for (const Stack& stack : kStacks) {
    const std::string name = layers + std::to_string(index++) + ".";
    for (int i = 0; i < stack.repeats; ++i) {
      x = inverted_residual(g, name + std::to_string(i), x, depths[stack.depth], stack.kernel,
                            i == 0 ? stack.stride : 1, stack.expansion);
    }
  }
  x = conv_bn(g, layers, index, x, kLastChannels, 1, 1, 1, Act::kReLU);
  // forward()'s x.mean([2, 3]).
  x = g.global_avg_pool_flatten("mean", x);
  x = g.dropout("classifier.0", x, kDropout);
  g.linear("classifier.1", x, num_classes);
  return g.finish();
}

}  // namespace xtrain
