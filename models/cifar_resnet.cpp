#include "models/cifar_resnet.h"

#include <string>

#include "lib/base/check.h"
#include "lib/graph/graph_builder.h"

namespace xtrain {
namespace {

Value basic_block(GraphBuilder& g, const std::string& name, Value x, int planes, int stride) {
  Value out = g.batchnorm_relu(name + ".bn1", g.conv2d(name + ".conv1", x, planes, 3, stride, 1));
  out = g.conv2d(name + ".conv2", out, planes, 3, 1, 1);
  Value shortcut = x;
  if (stride != 1 || g.channels(x) != planes) {
    shortcut = g.shortcut_pad(name + ".shortcut", x, planes, stride);
  }
  return g.batchnorm_add_relu(name + ".bn2", out, shortcut);  // relu(bn2(out) + shortcut)
}

}  // namespace

std::shared_ptr<const Graph> cifar_resnet(int depth, int num_classes) {
  XTRAIN_CHECK(depth >= 8 && (depth - 2) % 6 == 0, "CIFAR ResNet depth must be 6n + 2, got {}",
               depth);
  const int blocks_per_stage = (depth - 2) / 6;
  GraphBuilder g(/*input_channels=*/3);
  g.init_convs(WeightInit::kaiming_normal_fan_out());
  Value x = g.batchnorm_relu("bn1", g.conv2d("conv1", g.input(), 16, 3, 1, 1));
  const int planes[] = {16, 32, 64};
  for (int stage = 0; stage < 3; ++stage) {
    for (int i = 0; i < blocks_per_stage; ++i) {
      const std::string name = "layer" + std::to_string(stage + 1) + "." + std::to_string(i);
      const int stride = (stage > 0 && i == 0) ? 2 : 1;
      x = basic_block(g, name, x, planes[stage], stride);
    }
  }
  x = g.global_avg_pool_flatten("avgpool", x);
  g.linear("fc", x, num_classes);
  return g.finish();
}

}  // namespace xtrain
