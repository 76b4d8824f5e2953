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
    case Init::kConstant:
      std::fill_n(out, n, spec.scale);
      return;
  }
}

// Where every entry of a graph lives: its offset into the buffer of its kind, and each kind's
// size.
struct ParamLayout {
  std::vector<ParamEntry> entries;
  std::vector<int> node_first_entry;
  std::vector<size_t> node_first_param;
  ParamSizes sizes;
};

ParamLayout lay_out(const Graph& graph) {
  ParamLayout layout;
  for (const Node& node : graph.nodes()) {
    layout.node_first_entry.push_back(static_cast<int>(layout.entries.size()));
    layout.node_first_param.push_back(layout.sizes.params);
    for (ParamSpec& spec : node.layer->param_specs()) {
      const std::string name = node.layer->name() + "." + spec.name;
      const bool taken = std::any_of(layout.entries.begin(), layout.entries.end(),
                                     [&](const ParamEntry& e) { return e.name == name; });
      XTRAIN_CHECK(!taken, "two tensors named {}", name);
      ParamSizes& sizes = layout.sizes;
      size_t& size = spec.kind == ParamKind::kParameter ? sizes.params
                     : spec.kind == ParamKind::kBuffer  ? sizes.buffers
                                                        : sizes.counters;
      layout.entries.push_back({name, std::move(spec), size});
      size += ParamStore::elements_of(layout.entries.back().spec);
    }
  }
  layout.node_first_entry.push_back(static_cast<int>(layout.entries.size()));
  layout.node_first_param.push_back(layout.sizes.params);
  return layout;
}

}  // namespace

ParamStore::ParamStore(const Graph& graph) {
  ParamLayout layout = lay_out(graph);
  entries_ = std::move(layout.entries);
  node_first_entry_ = std::move(layout.node_first_entry);
  node_first_param_ = std::move(layout.node_first_param);
  params_ = AlignedBuffer(layout.sizes.params);
  grads_ = AlignedBuffer(layout.sizes.params);
  buffers_ = AlignedBuffer(layout.sizes.buffers);
  counters_.assign(layout.sizes.counters, 0);
}

ParamSizes ParamStore::sizes_for(const Graph& graph) { return lay_out(graph).sizes; }

size_t ParamStore::bytes() const {
  return (params_.size() + grads_.size() + buffers_.size()) * sizeof(float) +
         counters_.size() * sizeof(int64_t);
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
