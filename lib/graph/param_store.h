// ParamStore: every parameter, buffer and counter of one replica of a graph, each kind in one
// flat allocation (tensors are views into it), named by torchvision's state_dict keys. The
// gradient buffer mirrors the parameter buffer element for element, so zeroing, all-reduce and
// the optimizer are loops over one array. Not here: optimizer state (replica.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/graph/graph.h"
#include "lib/tensor/aligned_buffer.h"

namespace xtrain {

struct ParamEntry {
  std::string name;  // "layer1.0.conv1.weight"
  ParamSpec spec;
  size_t offset;  // into the buffer of spec.kind
};

// The elements a store holds of each kind: floats of parameters (and as many of gradients) and
// of buffers, int64 counters.
struct ParamSizes {
  size_t params = 0, buffers = 0, counters = 0;
  size_t bytes() const {
    return (2 * params + buffers) * sizeof(float) + counters * sizeof(int64_t);
  }
};

class ParamStore {
 public:
  explicit ParamStore(const Graph& graph);
  // The sizes a store of this graph has, laid out by the constructor's code without allocating
  // anything: sizes_for(graph).bytes() is its bytes().
  static ParamSizes sizes_for(const Graph& graph);

  // The elements an entry takes in the buffer of its kind: a scalar (shape []) takes one.
  static size_t elements_of(const ParamSpec& spec) {
    return static_cast<size_t>(std::max<int64_t>(1, spec.shape.numel()));
  }

  const std::vector<ParamEntry>& entries() const { return entries_; }
  // Entries of node i are entries()[first_entry(i) .. first_entry(i + 1)).
  int first_entry(int node) const { return node_first_entry_[node]; }
  // The parameters of nodes node, node + 1, ... are params()[first_param(node), num_params()),
  // as are their gradients: once backward has run down to a node, what lies past this is final.
  // first_param(number of nodes) is num_params().
  size_t first_param(int node) const { return node_first_param_[node]; }
  // The entry with this name, or null.
  const ParamEntry* find(const std::string& name) const;

  float* params() { return params_.data(); }
  float* grads() { return grads_.data(); }
  float* buffers() { return buffers_.data(); }
  int64_t* counters() { return counters_.data(); }
  size_t num_params() const { return params_.size(); }  // floats in params() and grads()
  size_t num_buffers() const { return buffers_.size(); }
  size_t num_counters() const { return counters_.size(); }
  ParamSizes sizes() const { return {num_params(), num_buffers(), num_counters()}; }
  // Its parameters, gradients, buffers and counters, as allocated.
  size_t bytes() const;

  // Where an entry's values live (parameters and buffers: floats; counters: int64).
  float* data(const ParamEntry& e);
  int64_t* counter(const ParamEntry& e);

  // torchvision's initialization of every entry, from one seeded random stream in entry order.
  void initialize(uint64_t seed);
  void zero_grads();

 private:
  std::vector<ParamEntry> entries_;
  std::vector<int> node_first_entry_;
  std::vector<size_t> node_first_param_;
  AlignedBuffer params_, grads_, buffers_;
  std::vector<int64_t> counters_;
};

}  // namespace xtrain
