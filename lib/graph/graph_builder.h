// GraphBuilder: builds a Graph with calls that read like torchvision's model code. Named layers
// take their state_dict prefix ("layer1.0.conv1"); parameter-free ones are named after their
// input ("layer1.0.bn1.relu") so every node has a name in profiles and errors.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lib/graph/graph.h"
#include "lib/kernels/activations.h"
#include "lib/nn/batchnorm2d.h"
#include "lib/nn/weight_init.h"

namespace xtrain {

struct Value {
  int id;
};

class GraphBuilder {
 public:
  explicit GraphBuilder(int input_channels);

  // How the Conv2d and Linear layers added from now on draw their weights and biases (the
  // family's init loop in torchvision); PyTorch's defaults until set.
  void init_convs(WeightInit init) { conv_init_ = init; }
  void init_linears(WeightInit init) { linear_init_ = init; }

  Value input() const { return {Graph::kImage}; }
  int channels(Value x) const { return channels_[x.id]; }

  Value conv2d(const std::string& name, Value x, int out_channels, int kernel_size, int stride = 1,
               int padding = 0, bool bias = false, int groups = 1);
  // A kernel_h x kernel_w convolution padded pad_h above and below, pad_w left and right.
  Value conv2d_rect(const std::string& name, Value x, int out_channels, int kernel_h, int kernel_w,
                    int stride, int pad_h, int pad_w, bool bias = false);
  // eps: 1e-5 as PyTorch's default; Inception's BasicConv2d uses 0.001. momentum: 0.1 as
  // PyTorch's default; MobileNetV3 uses 0.01 (with eps 0.001).
  Value batchnorm(const std::string& name, Value x, float eps = 1e-5f, float momentum = 0.1f);
  // relu(batchnorm(x)) as one layer, named and checkpointed like the batchnorm.
  Value batchnorm_relu(const std::string& name, Value x, float eps = 1e-5f);
  // The same over torch.cat(parts, 1), without building the concatenation (BatchNorm2d's parts):
  // DenseNet's norm layers over their growing list of features.
  Value batchnorm_relu(const std::string& name, const std::vector<Value>& parts, float eps = 1e-5f);
  // activation(batchnorm(x)) the same way, for any activation BatchNorm2d fuses without a
  // residual (the ReLU, the ReLU6, the Hardswish, the SiLU; kNothing is batchnorm's).
  Value batchnorm_activation(const std::string& name, Value x, BatchNorm2d::Fused activation,
                             float eps = 1e-5f, float momentum = 0.1f);
  // torchvision.ops.Conv2dNormActivation: <name>.0 a convolution without bias, padded to keep the
  // grid at stride 1, and <name>.1 its batchnorm_activation. The efficient families' block.
  Value conv_norm_activation(const std::string& name, Value x, int out_channels, int kernel_size,
                             int stride, int groups, BatchNorm2d::Fused activation,
                             float eps = 1e-5f, float momentum = 0.1f);
  // relu(batchnorm(x) + residual) as one layer, named and checkpointed like the batchnorm: a
  // residual block's last normalization, its sum and its ReLU in one pass over memory.
  Value batchnorm_add_relu(const std::string& name, Value x, Value residual);
  // torch.nn.LayerNorm(C, eps) over each row's channels (an NHWC pixel's, or an [N, C] row's):
  // torchvision's LayerNorm2d on a feature map, a ConvNeXt block's LayerNorm after its permute.
  Value layer_norm(const std::string& name, Value x, float eps = 1e-5f);
  Value relu(Value x);
  // An element-wise activation on its own (torch.nn.Hardswish, SiLU, GELU, ... after a Linear or
  // a convolution), named like the ReLU after its input: <x>.hardswish, <x>.silu, <x>.gelu, ...
  // The ReLU is the ReLU layer, relu(x).
  Value activation(Value x, kernels::Activation kind);
  // x * scale per channel: scale [N, 1, 1, C] (one value per image and channel) times x
  // [N, H, W, C], SqueezeExcitation's `scale * input`; named after x.
  Value channel_scale(Value x, Value scale);
  // torchvision.ops.SqueezeExcitation: x * scale_activation(fc2(activation(fc1(avgpool(x))))),
  // <name>.fc1 (to squeeze_channels) and <name>.fc2 (back to x's channels) 1x1 convolutions with
  // biases over the pooled 1x1 grid. MobileNetV3's gate is (ReLU, Hardsigmoid), EfficientNet's
  // (SiLU, Sigmoid), RegNetY's (ReLU, Sigmoid).
  Value squeeze_excitation(const std::string& name, Value x, int squeeze_channels,
                           kernels::Activation activation, kernels::Activation scale_activation);
  // ConvNeXt's layer scale: x times a learned value per channel, the tensor "<name>.layer_scale"
  // ([C, 1, 1], every value initial_value at first); name is the block's ("features.1.0").
  Value layer_scale(const std::string& name, Value x, float initial_value);
  Value max_pool2d(const std::string& name, Value x, int kernel_size, int stride, int padding,
                   bool ceil_mode = false);
  Value avg_pool2d(const std::string& name, Value x, int kernel_size, int stride, int padding = 0);
  Value adaptive_avg_pool2d(const std::string& name, Value x, int out_h, int out_w);
  // AdaptiveAvgPool2d(1) and flatten, to [N, C].
  Value global_avg_pool_flatten(const std::string& name, Value x);
  Value linear(const std::string& name, Value x, int out_features);
  // torch.nn.Linear over each pixel's channels of an NHWC value (ConvNeXt's block, between its
  // permutes): a PointwiseLinear, drawn as the Linear layers are.
  Value pointwise_linear(const std::string& name, Value x, int out_features);
  // torch.flatten(x, 1) of an [N, height, width, C] value: [N, C * height * width] in PyTorch's
  // (channel-major) order, so the next Linear's weight is torchvision's as it stands.
  Value flatten(Value x, int height, int width);
  Value add(Value a, Value b);
  // torch.cat(inputs, 1): channels of inputs[0] first. Same N, H and W.
  Value concat(const std::string& name, const std::vector<Value>& inputs);
  // x[:, start:start + width] (torch's narrow; one of x.chunk(k, dim=1)), as a dense value.
  Value channel_slice(const std::string& name, Value x, int start, int width);
  // channel_shuffle(torch.cat(parts, 1), groups) as torchvision's ShuffleNetV2 writes it, without
  // building the concatenation.
  Value channel_shuffle(const std::string& name, const std::vector<Value>& parts, int groups);
  // torch.nn.Dropout(p) under torchvision's module name, which keys its masks.
  Value dropout(const std::string& name, Value x, float p = 0.5f);
  // torchvision.ops.StochasticDepth(p, "row") under torchvision's module name, which keys its
  // masks: a residual branch dropped per sample.
  Value stochastic_depth(const std::string& name, Value x, double p);
  Value shortcut_pad(const std::string& name, Value x, int out_channels, int stride);

  // The finished graph; its output is the last value added.
  std::shared_ptr<const Graph> finish();

 private:
  Value append(std::unique_ptr<Layer> layer, std::vector<int> inputs, int out_channels);
  const std::string& name_of(Value x) const;
  // A layer over several parts (a concatenation's inputs): their ids, and their channels summed.
  static std::vector<int> ids_of(const std::vector<Value>& parts);
  int channels(const std::vector<Value>& parts) const;

  std::unique_ptr<Graph> graph_;
  std::vector<int> channels_;  // per value
  WeightInit conv_init_, linear_init_;
};

}  // namespace xtrain
