#include "lib/graph/param_store.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "lib/base/check.h"

namespace xtrain {
namespace {

void fill(const ParamSpec& spec, float* out, int64_t n, std::mt19937_64& rng) {
  switch (spec.init) {
    case Init::kZeros:
      std::fill_n(out, n, 0.0f);
      return;
    case Init::kOnes:
      std::fill_n(out, n, 1.0f);
      return;
    case Init::kNormal: {
      std::normal_distribution<float> normal(0.0f, spec.scale);
      for (int64_t i = 0; i < n; ++i) out[i] = normal(rng);
      return;
    }
    case Init::kTruncatedNormal: {
      std::normal_distribution<float> normal(0.0f, spec.scale);
      for (int64_t i = 0; i < n; ++i) {
        do out[i] = normal(rng);
        while (std::abs(out[i]) > 2.0f);
      }
      return;
    }
    case Init::kUniform: {
      std::uniform_real_distribution<float> uniform(-spec.scale, spec.scale);
      for (int64_t i = 0; i < n; ++i) out[i] = uniform(rng);
      return;
    }
  }
}

}  // namespace

ParamStore::ParamStore(const Graph& graph) {
  size_t sizes[3] = {0, 0, 0};  // floats per kind; counters count elements
  for (const Node& node : graph.nodes()) {
    node_first_entry_.push_back(static_cast<int>(entries_.size()));
    node_first_param_.push_back(sizes[0]);
    for (ParamSpec& spec : node.layer->param_specs()) {
      const std::string name = node.layer->name() + "." + spec.name;
      XTRAIN_CHECK(find(name) == nullptr, "two tensors named {}", name);
      size_t& size = sizes[static_cast<int>(spec.kind)];
      entries_.push_back({name, std::move(spec), size});
      size += std::max<int64_t>(1, entries_.back().spec.shape.numel());
    }
  }
  node_first_entry_.push_back(static_cast<int>(entries_.size()));
  node_first_param_.push_back(sizes[0]);
  params_ = AlignedBuffer(sizes[0]);
  grads_ = AlignedBuffer(sizes[0]);
  buffers_ = AlignedBuffer(sizes[1]);
  counters_.assign(sizes[2], 0);
}

const ParamEntry* ParamStore::find(const std::string& name) const {
  for (const ParamEntry& e : entries_) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

float* ParamStore::data(const ParamEntry& e) {
  XTRAIN_CHECK(e.spec.kind != ParamKind::kCounter, "{} is a counter, not floats", e.name);
  return (e.spec.kind == ParamKind::kParameter ? params_.data() : buffers_.data()) + e.offset;
}

int64_t* ParamStore::counter(const ParamEntry& e) {
  XTRAIN_CHECK(e.spec.kind == ParamKind::kCounter, "{} is not a counter", e.name);
  return counters_.data() + e.offset;
}

void ParamStore::initialize(uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (const ParamEntry& e : entries_) {
    if (e.spec.kind == ParamKind::kCounter) {
      *counter(e) = 0;
    } else {
      fill(e.spec, data(e), e.spec.shape.numel(), rng);
    }
  }
  zero_grads();
}

void ParamStore::zero_grads() {
  if (grads_.size() > 0) std::memset(grads_.data(), 0, grads_.size() * sizeof(float));
}

}  // namespace xtrain
