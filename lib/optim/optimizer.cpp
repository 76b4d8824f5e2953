#include "lib/optim/optimizer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "lib/base/check.h"
#include "lib/optim/adamw.h"
#include "lib/optim/lamb.h"
#include "lib/optim/lars.h"
#include "lib/optim/rmsprop.h"
#include "lib/optim/sgd.h"

namespace xtrain {
namespace {

// One value of --opt: its state buffers and how to build it.
struct Kind {
  std::string name;
  int (*state_buffers)(const OptimizerOptions&);
  std::unique_ptr<Optimizer> (*make)(const OptimizerOptions&, std::vector<ParamTensor>);
};

const std::vector<Kind>& kinds() {
  static const std::vector<Kind> kinds = {
      {"sgd", [](const OptimizerOptions&) { return 1; },
       [](const OptimizerOptions& o, std::vector<ParamTensor> t) -> std::unique_ptr<Optimizer> {
         return std::make_unique<SGD>(o.momentum, o.nesterov, std::move(t));
       }},
      {"sgd_nesterov", [](const OptimizerOptions&) { return 1; },
       [](const OptimizerOptions& o, std::vector<ParamTensor> t) -> std::unique_ptr<Optimizer> {
         return std::make_unique<SGD>(o.momentum, /*nesterov=*/true, std::move(t));
       }},
      {"rmsprop", [](const OptimizerOptions& o) { return o.momentum > 0 ? 2 : 1; },
       [](const OptimizerOptions& o, std::vector<ParamTensor> t) -> std::unique_ptr<Optimizer> {
         return std::make_unique<RMSprop>(o.momentum, std::move(t));
       }},
      {"adamw", [](const OptimizerOptions&) { return 2; },
       [](const OptimizerOptions&, std::vector<ParamTensor> t) -> std::unique_ptr<Optimizer> {
         return std::make_unique<AdamW>(std::move(t));
       }},
      {"lars", [](const OptimizerOptions&) { return 1; },
       [](const OptimizerOptions& o, std::vector<ParamTensor> t) -> std::unique_ptr<Optimizer> {
         return std::make_unique<LARS>(o.momentum, o.nesterov, o.trust_coefficient, std::move(t));
       }},
      {"lamb", [](const OptimizerOptions&) { return 2; },
       [](const OptimizerOptions&, std::vector<ParamTensor> t) -> std::unique_ptr<Optimizer> {
         return std::make_unique<LAMB>(std::move(t));
       }},
  };
  return kinds;
}

// The kind options.name names, once its options are checked.
const Kind& checked_kind(const OptimizerOptions& o) {
  const auto kind =
      std::find_if(kinds().begin(), kinds().end(), [&](const Kind& k) { return k.name == o.name; });
  XTRAIN_CHECK(kind != kinds().end(), "--opt must be one of {}, got '{}'",
               fmt::join(optimizer_names(), ", "), o.name);
  XTRAIN_CHECK(o.momentum >= 0.0f && std::isfinite(o.momentum), "--momentum must be >= 0, got {}",
               o.momentum);
  XTRAIN_CHECK(o.weight_decay >= 0.0f && std::isfinite(o.weight_decay),
               "--weight_decay must be >= 0, got {}", o.weight_decay);
  XTRAIN_CHECK(!o.nesterov || o.momentum > 0.0f, "--nesterov needs a momentum > 0");
  XTRAIN_CHECK(o.name != "sgd_nesterov" || o.momentum > 0.0f,
               "--opt=sgd_nesterov needs a --momentum > 0");
  XTRAIN_CHECK(!o.nesterov || o.name == "sgd" || o.name == "lars",
               "--nesterov applies to --opt=sgd and lars, not {}", o.name);
  XTRAIN_CHECK(o.trust_coefficient > 0.0f && std::isfinite(o.trust_coefficient),
               "--trust_coefficient must be > 0, got {}", o.trust_coefficient);
  return *kind;
}

}  // namespace

const std::vector<std::string>& optimizer_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> names;
    for (const Kind& kind : kinds()) names.push_back(kind.name);
    return names;
  }();
  return names;
}

Optimizer::Optimizer(std::vector<ParamTensor> tensors)
    : tensors_(std::move(tensors)), num_params_(covered_floats(tensors_)) {}

void Optimizer::copy_state_from(Optimizer& other) {
  const std::vector<StateBuffer> from = other.state(), to = state();
  XTRAIN_CHECK(from.size() == to.size(), "copy_state_from needs an optimizer of the same kind");
  for (size_t i = 0; i < to.size(); ++i) {
    XTRAIN_CHECK(from[i].name == to[i].name && from[i].size == to[i].size,
                 "copy_state_from needs an optimizer of the same kind over as many parameters");
    std::copy_n(from[i].values, to[i].size, to[i].values);
  }
}

std::unique_ptr<Optimizer> make_optimizer(const OptimizerOptions& options,
                                          std::vector<ParamTensor> tensors) {
  return checked_kind(options).make(options, std::move(tensors));
}

size_t optimizer_state_bytes(const OptimizerOptions& options, size_t num_params) {
  return checked_kind(options).state_buffers(options) * num_params * sizeof(float);
}

}  // namespace xtrain
