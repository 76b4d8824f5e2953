#include "lib/graph/graph_builder.h"

#include <algorithm>
#include <cctype>

#include "lib/base/check.h"
#include "lib/nn/activation.h"
#include "lib/nn/add.h"
#include "lib/nn/avg_pool2d.h"
#include "lib/nn/batchnorm2d.h"
#include "lib/nn/channel_scale.h"
#include "lib/nn/channel_shuffle.h"
#include "lib/nn/channel_slice.h"
#include "lib/nn/concat.h"
#include "lib/nn/conv2d.h"
#include "lib/nn/dropout.h"
#include "lib/nn/flatten.h"
#include "lib/nn/global_avg_pool_flatten.h"
#include "lib/nn/layer_norm.h"
#include "lib/nn/layer_scale.h"
#include "lib/nn/linear.h"
#include "lib/nn/max_pool2d.h"
#include "lib/nn/pointwise_linear.h"
#include "lib/nn/relu.h"
#include "lib/nn/shortcut_pad.h"
#include "lib/nn/stochastic_depth.h"

namespace xtrain {

GraphBuilder::GraphBuilder(int input_channels)
    : graph_(std::make_unique<Graph>(input_channels)), channels_{input_channels} {}

Value GraphBuilder::append(std::unique_ptr<Layer> layer, std::vector<int> inputs,
                           int out_channels) {
  const int id = graph_->add(std::move(layer), std::move(inputs));
  channels_.push_back(out_channels);
  return {id};
}

const std::string& GraphBuilder::name_of(Value x) const {
  static const std::string kInputName = "input";
  return x.id == Graph::kImage ? kInputName : graph_->nodes()[x.id - 1].layer->name();
}

std::vector<int> GraphBuilder::ids_of(const std::vector<Value>& parts) {
  std::vector<int> ids;
  for (Value x : parts) ids.push_back(x.id);
  return ids;
}

int GraphBuilder::channels(const std::vector<Value>& parts) const {
  int total = 0;
  for (Value x : parts) total += channels(x);
  return total;
}

Value GraphBuilder::conv2d(const std::string& name, Value x, int out_channels, int kernel_size,
                           int stride, int padding, bool bias, int groups) {
  return append(std::make_unique<Conv2d>(name, channels(x), out_channels, kernel_size, stride,
                                         padding, bias, groups, conv_init_),
                {x.id}, out_channels);
}

Value GraphBuilder::conv2d_rect(const std::string& name, Value x, int out_channels, int kernel_h,
                                int kernel_w, int stride, int pad_h, int pad_w, bool bias) {
  const ConvWindow window{kernel_h, kernel_w, stride, pad_h, pad_w};
  return append(std::make_unique<Conv2d>(name, channels(x), out_channels, window, bias,
                                         /*groups=*/1, conv_init_),
                {x.id}, out_channels);
}

Value GraphBuilder::batchnorm(const std::string& name, Value x, float eps, float momentum) {
  return append(
      std::make_unique<BatchNorm2d>(name, channels(x), BatchNorm2d::Fused::kNothing, eps, momentum),
      {x.id}, channels(x));
}

Value GraphBuilder::batchnorm_relu(const std::string& name, Value x, float eps) {
  return batchnorm_relu(name, std::vector<Value>{x}, eps);
}

Value GraphBuilder::batchnorm_relu(const std::string& name, const std::vector<Value>& parts,
                                   float eps) {
  const int total = channels(parts);
  return append(std::make_unique<BatchNorm2d>(name, total, BatchNorm2d::Fused::kReLU, eps),
                ids_of(parts), total);
}

Value GraphBuilder::batchnorm_activation(const std::string& name, Value x,
                                         BatchNorm2d::Fused activation, float eps, float momentum) {
  XTRAIN_CHECK(activation != BatchNorm2d::Fused::kAddReLU,
               "{}: the residual's sum is batchnorm_add_relu's", name);
  return append(std::make_unique<BatchNorm2d>(name, channels(x), activation, eps, momentum), {x.id},
                channels(x));
}

Value GraphBuilder::conv_norm_activation(const std::string& name, Value x, int out_channels,
                                         int kernel_size, int stride, int groups,
                                         BatchNorm2d::Fused activation, float eps, float momentum) {
  const Value conv = conv2d(name + ".0", x, out_channels, kernel_size, stride,
                            (kernel_size - 1) / 2, /*bias=*/false, groups);
  return batchnorm_activation(name + ".1", conv, activation, eps, momentum);
}

Value GraphBuilder::batchnorm_add_relu(const std::string& name, Value x, Value residual) {
  return append(std::make_unique<BatchNorm2d>(name, channels(x), BatchNorm2d::Fused::kAddReLU),
                {x.id, residual.id}, channels(x));
}

Value GraphBuilder::relu(Value x) {
  return append(std::make_unique<ReLU>(name_of(x) + ".relu"), {x.id}, channels(x));
}

Value GraphBuilder::activation(Value x, kernels::Activation kind) {
  // The ReLU layer masks with its output, so the plan need not keep the input for its backward.
  if (kind == kernels::Activation::kReLU) return relu(x);
  std::string name = Activation::torch_name(kind);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return append(std::make_unique<Activation>(name_of(x) + "." + name, kind), {x.id}, channels(x));
}

Value GraphBuilder::layer_norm(const std::string& name, Value x, float eps) {
  return append(std::make_unique<LayerNorm>(name, channels(x), eps), {x.id}, channels(x));
}

Value GraphBuilder::layer_scale(const std::string& name, Value x, float initial_value) {
  return append(std::make_unique<LayerScale>(name, channels(x), initial_value), {x.id},
                channels(x));
}

Value GraphBuilder::channel_scale(Value x, Value scale) {
  return append(std::make_unique<ChannelScale>(name_of(x) + ".scale"), {x.id, scale.id},
                channels(x));
}

Value GraphBuilder::squeeze_excitation(const std::string& name, Value x, int squeeze_channels,
                                       kernels::Activation activation,
                                       kernels::Activation scale_activation) {
  Value scale = adaptive_avg_pool2d(name + ".avgpool", x, 1, 1);
  scale = conv2d(name + ".fc1", scale, squeeze_channels, 1, 1, 0, /*bias=*/true);
  scale = this->activation(scale, activation);
  scale = conv2d(name + ".fc2", scale, channels(x), 1, 1, 0, /*bias=*/true);
  scale = this->activation(scale, scale_activation);
  return channel_scale(x, scale);
}

Value GraphBuilder::max_pool2d(const std::string& name, Value x, int kernel_size, int stride,
                               int padding, bool ceil_mode) {
  return append(std::make_unique<MaxPool2d>(name, kernel_size, stride, padding, ceil_mode), {x.id},
                channels(x));
}

Value GraphBuilder::avg_pool2d(const std::string& name, Value x, int kernel_size, int stride,
                               int padding) {
  return append(std::make_unique<AvgPool2d>(name, kernel_size, stride, padding), {x.id},
                channels(x));
}

Value GraphBuilder::adaptive_avg_pool2d(const std::string& name, Value x, int out_h, int out_w) {
  return append(std::make_unique<AdaptiveAvgPool2d>(name, out_h, out_w), {x.id}, channels(x));
}

Value GraphBuilder::global_avg_pool_flatten(const std::string& name, Value x) {
  return append(std::make_unique<GlobalAvgPoolFlatten>(name), {x.id}, channels(x));
}

Value GraphBuilder::linear(const std::string& name, Value x, int out_features) {
  return append(std::make_unique<Linear>(name, channels(x), out_features, linear_init_), {x.id},
                out_features);
}

Value GraphBuilder::pointwise_linear(const std::string& name, Value x, int out_features) {
  return append(std::make_unique<PointwiseLinear>(name, channels(x), out_features, linear_init_),
                {x.id}, out_features);
}

Value GraphBuilder::flatten(Value x, int height, int width) {
  return append(std::make_unique<Flatten>(name_of(x) + ".flatten", height, width), {x.id},
                channels(x) * height * width);
}

Value GraphBuilder::add(Value a, Value b) {
  return append(std::make_unique<Add>(name_of(a) + ".add"), {a.id, b.id}, channels(a));
}

Value GraphBuilder::concat(const std::string& name, const std::vector<Value>& inputs) {
  return append(std::make_unique<Concat>(name), ids_of(inputs), channels(inputs));
}

Value GraphBuilder::channel_slice(const std::string& name, Value x, int start, int width) {
  return append(std::make_unique<ChannelSlice>(name, start, width), {x.id}, width);
}

Value GraphBuilder::channel_shuffle(const std::string& name, const std::vector<Value>& parts,
                                    int groups) {
  return append(std::make_unique<ChannelShuffle>(name, groups), ids_of(parts), channels(parts));
}

Value GraphBuilder::dropout(const std::string& name, Value x, float p) {
  return append(std::make_unique<Dropout>(name, p), {x.id}, channels(x));
}

Value GraphBuilder::stochastic_depth(const std::string& name, Value x, double p) {
  return append(std::make_unique<StochasticDepth>(name, p), {x.id}, channels(x));
}

Value GraphBuilder::shortcut_pad(const std::string& name, Value x, int out_channels, int stride) {
  return append(std::make_unique<ShortcutPad>(name, out_channels, stride), {x.id}, out_channels);
}

std::shared_ptr<const Graph> GraphBuilder::finish() {
  XTRAIN_CHECK(graph_ != nullptr, "GraphBuilder::finish called twice");
  XTRAIN_CHECK(!graph_->nodes().empty(), "a model needs at least one layer");
  return std::shared_ptr<const Graph>(std::move(graph_));
}

}  // namespace xtrain
