#include "models/squeezenet.h"

#include <string>

#include "lib/graph/graph_builder.h"

namespace xtrain {
namespace {

std::string feature(int index) { return "features." + std::to_string(index); }

// cat(relu(expand1x1(s)), relu(expand3x3(s))) over channels, s = relu(squeeze(x)).
Value fire(GraphBuilder& g, int index, Value x, int squeeze, int expand) {
  const std::string name = feature(index);
  const Value s = g.relu(g.conv2d(name + ".squeeze", x, squeeze, 1, 1, 0, /*bias=*/true));
  const Value e1 = g.relu(g.conv2d(name + ".expand1x1", s, expand, 1, 1, 0, /*bias=*/true));
  const Value e3 = g.relu(g.conv2d(name + ".expand3x3", s, expand, 3, 1, 1, /*bias=*/true));
  return g.concat(name + ".cat", {e1, e3});
}

Value max_pool(GraphBuilder& g, int index, Value x) {
  return g.max_pool2d(feature(index), x, 3, 2, 0, /*ceil_mode=*/true);
}

// Dropout, the final 1x1 convolution (drawn normal(0, 0.01)), ReLU, the average over the grid.
std::shared_ptr<const Graph> finish_with_classifier(GraphBuilder& g, Value x, int num_classes) {
  x = g.dropout("classifier.0", x, 0.5f);
  g.init_convs({WeightInit::Weight::kNormal, 0.01f, /*zero_bias=*/true});
  x = g.relu(g.conv2d("classifier.1", x, num_classes, 1, 1, 0, /*bias=*/true));
  g.global_avg_pool_flatten("classifier.3", x);
  return g.finish();
}

// Every other convolution: kaiming_uniform_ (a = 0), zero bias.
GraphBuilder squeezenet_builder() {
  GraphBuilder g(/*input_channels=*/3);
  g.init_convs({WeightInit::Weight::kKaimingUniformFanIn, 0.0f, /*zero_bias=*/true});
  return g;
}

}  // namespace

std::shared_ptr<const Graph> squeezenet1_0(int num_classes) {
  GraphBuilder g = squeezenet_builder();
  Value x = g.relu(g.conv2d(feature(0), g.input(), 96, 7, 2, 0, /*bias=*/true));
  x = max_pool(g, 2, x);
  x = fire(g, 3, x, 16, 64);
  x = fire(g, 4, x, 16, 64);
  x = fire(g, 5, x, 32, 128);
  x = max_pool(g, 6, x);
  x = fire(g, 7, x, 32, 128);
  x = fire(g, 8, x, 48, 192);
  x = fire(g, 9, x, 48, 192);
  x = fire(g, 10, x, 64, 256);
  x = max_pool(g, 11, x);
  x = fire(g, 12, x, 64, 256);
  return finish_with_classifier(g, x, num_classes);
}

std::shared_ptr<const Graph> squeezenet1_1(int num_classes) {
  GraphBuilder g = squeezenet_builder();
  Value x = g.relu(g.conv2d(feature(0), g.input(), 64, 3, 2, 0, /*bias=*/true));
  x = max_pool(g, 2, x);
  x = fire(g, 3, x, 16, 64);
  x = fire(g, 4, x, 16, 64);
  x = max_pool(g, 5, x);
  x = fire(g, 6, x, 32, 128);
  x = fire(g, 7, x, 32, 128);
  x = max_pool(g, 8, x);
  x = fire(g, 9, x, 48, 192);
  x = fire(g, 10, x, 48, 192);
  x = fire(g, 11, x, 64, 256);
  x = fire(g, 12, x, 64, 256);
  return finish_with_classifier(g, x, num_classes);
}

}  // namespace xtrain
