// WeightInit: how a model family draws the weights and biases of its Conv2d and Linear layers,
// the init loop at the end of a torchvision model's __init__ (or PyTorch's own defaults where it
// has none). A layer turns its family's rule and its fans into ParamSpecs.
#pragma once

#include <cstdint>

#include "lib/nn/layer.h"

namespace xtrain {

struct WeightInit {
  enum class Weight {
    kTorchDefault,          // nn.Conv2d / nn.Linear: uniform(+-1/sqrt(fan_in)) (AlexNet)
    kKaimingNormalFanOut,   // normal(0, sqrt(2 / fan_out)) (ResNet, VGG convs)
    kKaimingNormalFanIn,    // normal(0, sqrt(2 / fan_in)) (DenseNet convs)
    kKaimingUniformFanIn,   // uniform(+-sqrt(6 / fan_in)) (SqueezeNet convs)
    kUniformFanOut,         // uniform(+-sqrt(3 / fan_out)): kaiming_uniform_ at gain 1 (MNASNet)
    kNormal,                // normal(0, std) (VGG's Linear layers, SqueezeNet's final conv)
    kTruncatedNormal,       // normal(0, std) cut to [-2, 2] (Inception)
    kUniformInvSqrtFanOut,  // uniform(+-1/sqrt(fan_out)) (EfficientNet's Linear layer)
  };
  Weight weight = Weight::kTorchDefault;
  float std = 0.0f;        // kNormal, kTruncatedNormal
  bool zero_bias = false;  // else nn's default bias, uniform(+-1/sqrt(fan_in))

  static WeightInit kaiming_normal_fan_out() { return {Weight::kKaimingNormalFanOut}; }
};

// fan_in = C_in / groups * KH * KW (in_features), fan_out = C_out * KH * KW (out_features), as
// torch's _calculate_fan_in_and_fan_out computes them from the weight's PyTorch shape.
ParamSpec weight_spec(const WeightInit& init, Shape shape, int64_t fan_in, int64_t fan_out);
ParamSpec bias_spec(const WeightInit& init, int out_features, int64_t fan_in);

}  // namespace xtrain
