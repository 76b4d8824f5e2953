#include "tests/graph/tiny_resnet.h"

#include "lib/graph/graph_builder.h"

namespace xtrain::testing {

std::shared_ptr<const Graph> tiny_resnet(int num_classes) {
  GraphBuilder g(3);
  Value x = g.relu(g.batchnorm("bn1", g.conv2d("conv1", g.input(), 4, 3, 1, 1)));
  x = g.max_pool2d("maxpool", x, 3, 1, 1);

  // Basic block, stride 2, with a 1x1 downsample.
  Value out = g.relu(g.batchnorm("basic.bn1", g.conv2d("basic.conv1", x, 8, 3, 2, 1)));
  out = g.batchnorm("basic.bn2", g.conv2d("basic.conv2", out, 8, 3, 1, 1));
  Value identity = g.batchnorm("basic.downsample.1", g.conv2d("basic.downsample.0", x, 8, 1, 2));
  x = g.relu(g.add(out, identity));

  // Bottleneck (width 2, expansion 4) with an identity shortcut, fused as the model zoo builds it.
  out = g.batchnorm_relu("neck.bn1", g.conv2d("neck.conv1", x, 2, 1));
  out = g.batchnorm_relu("neck.bn2", g.conv2d("neck.conv2", out, 2, 3, 1, 1));
  x = g.batchnorm_add_relu("neck.bn3", g.conv2d("neck.conv3", out, 8, 1), x);

  // CIFAR-style block with an option-A shortcut.
  out = g.relu(g.batchnorm("cifar.bn1", g.conv2d("cifar.conv1", x, 12, 3, 2, 1)));
  out = g.batchnorm("cifar.bn2", g.conv2d("cifar.conv2", out, 12, 3, 1, 1));
  x = g.relu(g.add(out, g.shortcut_pad("cifar.shortcut", x, 12, 2)));

  x = g.global_avg_pool_flatten("avgpool", x);
  g.linear("fc", x, num_classes);
  return g.finish();
}

}  // namespace xtrain::testing
