#include "models/resnet.h"

#include <string>
#include <vector>

#include "lib/graph/graph_builder.h"

namespace xtrain {
namespace {

enum class Block { kBasic, kBottleneck };

int expansion(Block block) { return block == Block::kBasic ? 1 : 4; }

Value downsample_if_needed(GraphBuilder& g, const std::string& name, Value x, int out_channels,
                           int stride) {
  if (stride == 1 && g.channels(x) == out_channels) return x;
  return g.batchnorm(name + ".downsample.1",
                     g.conv2d(name + ".downsample.0", x, out_channels, 1, stride));
}

Value basic_block(GraphBuilder& g, const std::string& name, Value x, int planes, int stride) {
  Value out = g.batchnorm_relu(name + ".bn1", g.conv2d(name + ".conv1", x, planes, 3, stride, 1));
  out = g.conv2d(name + ".conv2", out, planes, 3, 1, 1);
  // relu(bn2(out) + identity) in one layer, after the downsample it reads.
  return g.batchnorm_add_relu(name + ".bn2", out, downsample_if_needed(g, name, x, planes, stride));
}

// The width of a Bottleneck's 3x3 convolution and its groups: ResNet (64, 1), ResNeXt
// (e.g. 4 channels per group in 32 groups), Wide ResNet (128, 1: twice ResNet's width).
struct Cardinality {
  int width_per_group = 64;
  int groups = 1;

  int width(int planes) const { return planes * width_per_group / 64 * groups; }
};

Value bottleneck(GraphBuilder& g, const std::string& name, Value x, int planes, int stride,
                 Cardinality cardinality) {
  const int out_channels = planes * expansion(Block::kBottleneck);
  const int width = cardinality.width(planes);
  Value out = g.batchnorm_relu(name + ".bn1", g.conv2d(name + ".conv1", x, width, 1));
  out = g.batchnorm_relu(name + ".bn2", g.conv2d(name + ".conv2", out, width, 3, stride, 1,
                                                 /*bias=*/false, cardinality.groups));
  out = g.conv2d(name + ".conv3", out, out_channels, 1);
  // relu(bn3(out) + identity) in one layer, after the downsample it reads.
  return g.batchnorm_add_relu(name + ".bn3", out,
                              downsample_if_needed(g, name, x, out_channels, stride));
}

std::shared_ptr<const Graph> resnet(Block block, const std::vector<int>& layers, int num_classes,
                                    Cardinality cardinality = {}) {
  GraphBuilder g(/*input_channels=*/3);
  g.init_convs(WeightInit::kaiming_normal_fan_out());
  Value x = g.batchnorm_relu("bn1", g.conv2d("conv1", g.input(), 64, 7, 2, 3));
  x = g.max_pool2d("maxpool", x, 3, 2, 1);
  const int planes[] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4; ++stage) {
    for (int i = 0; i < layers[stage]; ++i) {
      const std::string name = "layer" + std::to_string(stage + 1) + "." + std::to_string(i);
      const int stride = (stage > 0 && i == 0) ? 2 : 1;
      x = block == Block::kBasic ? basic_block(g, name, x, planes[stage], stride)
                                 : bottleneck(g, name, x, planes[stage], stride, cardinality);
    }
  }
  x = g.global_avg_pool_flatten("avgpool", x);
  g.linear("fc", x, num_classes);
  return g.finish();
}

}  // namespace

std::shared_ptr<const Graph> resnet18(int num_classes) {
  return resnet(Block::kBasic, {2, 2, 2, 2}, num_classes);
}
std::shared_ptr<const Graph> resnet34(int num_classes) {
  return resnet(Block::kBasic, {3, 4, 6, 3}, num_classes);
}
std::shared_ptr<const Graph> resnet50(int num_classes) {
  return resnet(Block::kBottleneck, {3, 4, 6, 3}, num_classes);
}
std::shared_ptr<const Graph> resnet101(int num_classes) {
  return resnet(Block::kBottleneck, {3, 4, 23, 3}, num_classes);
}
std::shared_ptr<const Graph> resnet152(int num_classes) {
  return resnet(Block::kBottleneck, {3, 8, 36, 3}, num_classes);
}
std::shared_ptr<const Graph> resnext50_32x4d(int num_classes) {
  return resnet(Block::kBottleneck, {3, 4, 6, 3}, num_classes, {/*width_per_group=*/4, 32});
}
std::shared_ptr<const Graph> resnext101_32x8d(int num_classes) {
  return resnet(Block::kBottleneck, {3, 4, 23, 3}, num_classes, {/*width_per_group=*/8, 32});
}
std::shared_ptr<const Graph> resnext101_64x4d(int num_classes) {
  return resnet(Block::kBottleneck, {3, 4, 23, 3}, num_classes, {/*width_per_group=*/4, 64});
}
std::shared_ptr<const Graph> wide_resnet50_2(int num_classes) {
  return resnet(Block::kBottleneck, {3, 4, 6, 3}, num_classes, {/*width_per_group=*/128, 1});
}
std::shared_ptr<const Graph> wide_resnet101_2(int num_classes) {
  return resnet(Block::kBottleneck, {3, 4, 23, 3}, num_classes, {/*width_per_group=*/128, 1});
}

}  // namespace xtrain
