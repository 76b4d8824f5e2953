#include "lib/nn/weight_init.h"

#include <cmath>

namespace xtrain {
namespace {

// nn's default for weights (kaiming_uniform_ with a = sqrt(5)) and biases: the same bound.
float torch_default_bound(int64_t fan_in) { return 1.0f / std::sqrt(static_cast<float>(fan_in)); }

}  // namespace

ParamSpec weight_spec(const WeightInit& init, Shape shape, int64_t fan_in, int64_t fan_out) {
  ParamSpec spec{"weight", std::move(shape), ParamKind::kParameter};
  using Weight = WeightInit::Weight;
  switch (init.weight) {
    case Weight::kTorchDefault:
      spec.init = Init::kUniform;
      spec.scale = torch_default_bound(fan_in);
      break;
    case Weight::kKaimingNormalFanOut:
      spec.init = Init::kNormal;
      spec.scale = std::sqrt(2.0f / fan_out);
      break;
    case Weight::kKaimingNormalFanIn:
      spec.init = Init::kNormal;
      spec.scale = std::sqrt(2.0f / fan_in);
      break;
    case Weight::kKaimingUniformFanIn:
      spec.init = Init::kUniform;
      spec.scale = std::sqrt(6.0f / fan_in);
      break;
    case Weight::kUniformFanOut:
      spec.init = Init::kUniform;
      spec.scale = std::sqrt(3.0f / fan_out);
      break;
    case Weight::kNormal:
      spec.init = Init::kNormal;
      spec.scale = init.std;
      break;
    case Weight::kTruncatedNormal:
      spec.init = Init::kTruncatedNormal;
      spec.scale = init.std;
      break;
    case Weight::kUniformInvSqrtFanOut:
      spec.init = Init::kUniform;
      spec.scale = 1.0f / std::sqrt(static_cast<float>(fan_out));
      break;
  }
  return spec;
}

ParamSpec bias_spec(const WeightInit& init, int out_features, int64_t fan_in) {
  if (init.zero_bias) return {"bias", Shape{out_features}, ParamKind::kParameter, Init::kZeros};
  return {"bias", Shape{out_features}, ParamKind::kParameter, Init::kUniform,
          torch_default_bound(fan_in)};
}

}  // namespace xtrain
