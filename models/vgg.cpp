#include "models/vgg.h"

#include <string>
#include <vector>

#include "lib/base/check.h"
#include "lib/graph/graph_builder.h"

namespace xtrain {
namespace {

constexpr int kMaxPool = 0;  // a 2x2 max-pooling in a configuration, between output widths

// torchvision's cfgs: each entry a 3x3 convolution's output channels, or kMaxPool.
std::vector<int> configuration(int depth) {
  const int m = kMaxPool;
  switch (depth) {
    case 11:
      return {64, m, 128, m, 256, 256, m, 512, 512, m, 512, 512, m};
    case 13:
      return {64, 64, m, 128, 128, m, 256, 256, m, 512, 512, m, 512, 512, m};
    case 16:
      return {64, 64, m, 128, 128, m, 256, 256, 256, m, 512, 512, 512, m, 512, 512, 512, m};
    case 19:
      return {64,  64,  m,   128, 128, m,   256, 256, 256, 256, m,
              512, 512, 512, 512, m,   512, 512, 512, 512, m};
  }
  XTRAIN_CHECK(false, "VGG depth must be 11, 13, 16 or 19, got {}", depth);
  return {};
}

// features.<i>: i counts torchvision's modules, ReLUs and pools included.
std::string feature(int index) { return "features." + std::to_string(index); }

// classifier: Linear, ReLU, Dropout, Linear, ReLU, Dropout, Linear (VGG); AlexNet puts each
// Dropout before its Linear instead. The weights see [N, C * side * side] in PyTorch's order.
Value classifier(GraphBuilder& g, Value x, int side, int num_classes, bool dropout_first) {
  x = g.flatten(g.adaptive_avg_pool2d("avgpool", x, side, side), side, side);
  int index = 0;
  for (int i = 0; i < 2; ++i) {
    const auto drop = [&] { x = g.dropout("classifier." + std::to_string(index++), x, 0.5f); };
    if (dropout_first) drop();
    x = g.relu(g.linear("classifier." + std::to_string(index++), x, 4096));
    ++index;  // the ReLU
    if (!dropout_first) drop();
  }
  return g.linear("classifier." + std::to_string(index), x, num_classes);
}

}  // namespace

std::shared_ptr<const Graph> vgg(int depth, bool batch_norm, int num_classes) {
  GraphBuilder g(/*input_channels=*/3);
  g.init_convs({WeightInit::Weight::kKaimingNormalFanOut, 0.0f, /*zero_bias=*/true});
  g.init_linears({WeightInit::Weight::kNormal, 0.01f, /*zero_bias=*/true});
  Value x = g.input();
  int index = 0;
  for (int width : configuration(depth)) {
    if (width == kMaxPool) {
      x = g.max_pool2d(feature(index++), x, 2, 2, 0);
      continue;
    }
    x = g.conv2d(feature(index++), x, width, 3, 1, 1, /*bias=*/true);
    x = batch_norm ? g.batchnorm_relu(feature(index++), x) : g.relu(x);
    ++index;  // the ReLU
  }
  classifier(g, x, 7, num_classes, /*dropout_first=*/false);
  return g.finish();
}

std::shared_ptr<const Graph> alexnet(int num_classes) {
  GraphBuilder g(/*input_channels=*/3);  // nn's default initialization throughout
  Value x = g.relu(g.conv2d(feature(0), g.input(), 64, 11, 4, 2, /*bias=*/true));
  x = g.max_pool2d(feature(2), x, 3, 2, 0);
  x = g.relu(g.conv2d(feature(3), x, 192, 5, 1, 2, /*bias=*/true));
  x = g.max_pool2d(feature(5), x, 3, 2, 0);
  x = g.relu(g.conv2d(feature(6), x, 384, 3, 1, 1, /*bias=*/true));
  x = g.relu(g.conv2d(feature(8), x, 256, 3, 1, 1, /*bias=*/true));
  x = g.relu(g.conv2d(feature(10), x, 256, 3, 1, 1, /*bias=*/true));
  x = g.max_pool2d(feature(12), x, 3, 2, 0);
  classifier(g, x, 6, num_classes, /*dropout_first=*/true);
  return g.finish();
}

}  // namespace xtrain
