#include "lib/train/model_ema.h"

#include <algorithm>
#include <cmath>

#include "lib/base/check.h"

namespace xtrain {
namespace {

// torch's decay * avg + (1 - decay) * model on float32 tensors: the Python floats become float32
// scalars, each product is rounded, then their sum (this file is built without FMA contraction).
void average_into(float* avg, const float* model, size_t n, float decay, float weight) {
  for (size_t i = 0; i < n; ++i) {
    const float kept = decay * avg[i];
    const float taken = weight * model[i];
    avg[i] = kept + taken;
  }
}

// The same on int64 counters: an int64 tensor times a Python float is float32, and copy_ into
// the int64 average truncates towards zero.
void average_into(int64_t* avg, const int64_t* model, size_t n, float decay, float weight) {
  for (size_t i = 0; i < n; ++i) {
    const float kept = decay * static_cast<float>(avg[i]);
    const float taken = weight * static_cast<float>(model[i]);
    avg[i] = static_cast<int64_t>(std::trunc(kept + taken));
  }
}

}  // namespace

double adjusted_ema_decay(const ModelEmaOptions& options, int64_t global_batch, int num_epochs) {
  XTRAIN_CHECK(num_epochs > 0, "--model_ema needs --num_epochs > 0, got {}", num_epochs);
  const double adjust =
      static_cast<double>(global_batch * options.steps) / static_cast<double>(num_epochs);
  const double alpha = std::min(1.0, (1.0 - options.decay) * adjust);
  return 1.0 - alpha;
}

ModelEma::ModelEma(const ParamSizes& sizes, double decay)
    : decay_(decay), params_(sizes.params), buffers_(sizes.buffers), counters_(sizes.counters) {
  state_ = {params_.data(), buffers_.data(), counters_.data(), &n_averaged_};
}

std::unique_ptr<ModelEma> make_model_ema(const ModelEmaOptions& options, ParamStore& model,
                                         int64_t global_batch, int num_epochs) {
  if (!options.enabled) return nullptr;
  auto ema = std::make_unique<ModelEma>(model.sizes(),
                                        adjusted_ema_decay(options, global_batch, num_epochs));
  // AveragedModel starts as a copy of the model; its first update copies it again.
  ema->update(model);
  ema->restart();
  return ema;
}

size_t ModelEma::bytes_for(const ParamSizes& sizes) {
  return (sizes.params + sizes.buffers) * sizeof(float) + sizes.counters * sizeof(int64_t);
}

size_t ModelEma::bytes() const {
  return bytes_for({params_.size(), buffers_.size(), counters_.size()});
}

void ModelEma::update(ParamStore& model) {
  XTRAIN_CHECK(model.num_params() == params_.size() && model.num_buffers() == buffers_.size() &&
                   model.num_counters() == counters_.size(),
               "ModelEma: the model's store has another layout than the average's");
  if (n_averaged_ == 0) {
    std::copy_n(model.params(), params_.size(), params_.data());
    std::copy_n(model.buffers(), buffers_.size(), buffers_.data());
    std::copy_n(model.counters(), counters_.size(), counters_.data());
  } else {
    const auto decay = static_cast<float>(decay_);
    const auto weight = static_cast<float>(1.0 - decay_);
    average_into(params_.data(), model.params(), params_.size(), decay, weight);
    average_into(buffers_.data(), model.buffers(), buffers_.size(), decay, weight);
    average_into(counters_.data(), model.counters(), counters_.size(), decay, weight);
  }
  ++n_averaged_;
}

void ModelEma::after_step(ParamStore& model, int64_t batch, int steps, bool in_warmup) {
  if (batch % steps != 0) return;
  update(model);
  if (in_warmup) restart();
}

void ModelEma::swap_with(ParamStore& model) {
  std::swap_ranges(params_.data(), params_.data() + params_.size(), model.params());
  std::swap_ranges(buffers_.data(), buffers_.data() + buffers_.size(), model.buffers());
  std::swap_ranges(counters_.begin(), counters_.end(), model.counters());
}

void ModelEma::copy_from(const ModelEma& other) {
  XTRAIN_CHECK(other.params_.size() == params_.size() && other.buffers_.size() == buffers_.size() &&
                   other.counters_.size() == counters_.size(),
               "ModelEma: copying an average of another model");
  std::copy_n(other.params_.data(), params_.size(), params_.data());
  std::copy_n(other.buffers_.data(), buffers_.size(), buffers_.data());
  std::copy(other.counters_.begin(), other.counters_.end(), counters_.begin());
  n_averaged_ = other.n_averaged_;
  decay_ = other.decay_;
}

}  // namespace xtrain
