#include "lib/graph/param_groups.h"

#include <algorithm>
#include <array>

namespace xtrain {
namespace {

// The weight decay of a parameter, spec_name its own name ("weight", "bias", ...), of a layer
// that normalizes or not.
float weight_decay_of(const std::string& spec_name, bool of_norm_layer, const OptimizerOptions& o) {
  static const std::array<std::string, 3> kEmbeddings = {"class_token", "position_embedding",
                                                         "relative_position_bias_table"};
  if (spec_name == "bias" && o.bias_weight_decay) return *o.bias_weight_decay;
  const bool embedding =
      std::find(kEmbeddings.begin(), kEmbeddings.end(), spec_name) != kEmbeddings.end();
  if (embedding && o.transformer_embedding_decay) return *o.transformer_embedding_decay;
  if (of_norm_layer && o.norm_weight_decay) return *o.norm_weight_decay;
  return o.weight_decay;
}

}  // namespace

std::vector<ParamTensor> param_tensors(const Graph& graph, const ParamStore& store,
                                       const OptimizerOptions& options) {
  std::vector<ParamTensor> tensors;
  const std::vector<Node>& nodes = graph.nodes();
  for (size_t node = 0; node < nodes.size(); ++node) {
    const Layer& layer = *nodes[node].layer;
    const int end = store.first_entry(static_cast<int>(node) + 1);
    for (int i = store.first_entry(static_cast<int>(node)); i < end; ++i) {
      const ParamEntry& e = store.entries()[i];
      if (e.spec.kind != ParamKind::kParameter) continue;
      ParamTensor t;
      t.offset = e.offset;
      t.size = ParamStore::elements_of(e.spec);
      t.weight_decay = weight_decay_of(e.spec.name, layer.is_normalization(), options);
      t.adapted = !layer.is_normalization() && e.spec.name != "bias";
      tensors.push_back(t);
    }
  }
  return tensors;
}

}  // namespace xtrain
