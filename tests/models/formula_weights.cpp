#include "tests/models/formula_weights.h"

#include <cmath>

namespace xtrain::testing {

double hashed_uniform(int64_t i, int64_t k) {
  uint64_t h = static_cast<uint64_t>(i * 2654435761LL + k * 40503 + 12345) & 0xFFFFFFFFu;
  h ^= h >> 16;
  h = (h * 0x45D9F3Bu) & 0xFFFFFFFFu;
  h ^= h >> 16;
  return static_cast<double>(h) / 2147483648.0 - 1.0;
}

std::vector<TorchLayout> torch_layouts(const Graph& graph, const ParamStore& store) {
  std::vector<TorchLayout> layouts;
  for (size_t node = 0; node < graph.nodes().size(); ++node) {
    for (int e = store.first_entry(node); e < store.first_entry(node + 1); ++e) {
      layouts.push_back(torch_layout(*graph.nodes()[node].layer, store.entries()[e].spec));
    }
  }
  return layouts;
}

namespace {

// The formulas of make_golden.py, at flat index i of a tensor of PyTorch's shape.
double formula(const std::string& name, const std::vector<int64_t>& shape, int64_t i) {
  int k = 0;
  for (char ch : name) k += static_cast<unsigned char>(ch);
  const double u = hashed_uniform(i, k % 97);
  const bool is_weight = name.size() >= 7 && name.compare(name.size() - 7, 7, ".weight") == 0;
  if (shape.size() == 2) return u / std::sqrt(double(shape[1]));
  if (shape.size() == 4) {
    const double fan_out = double(shape[0] * shape[2] * shape[3]);
    return std::sqrt(3.0) * std::sqrt(2.0 / fan_out) * u;
  }
  return is_weight ? 1.0 + 0.2 * u : 0.1 * u;
}

}  // namespace

void set_formula_parameters(Replica& replica) {
  ParamStore& store = replica.store();
  const std::vector<TorchLayout> layouts = torch_layouts(replica.graph(), store);
  for (size_t k = 0; k < store.entries().size(); ++k) {
    const ParamEntry& e = store.entries()[k];
    if (e.spec.kind != ParamKind::kParameter) continue;
    const std::vector<int64_t> shape = torch_shape(layouts[k], e.spec.shape);
    std::vector<float> torch(e.spec.shape.numel());
    for (size_t i = 0; i < torch.size(); ++i) {
      torch[i] = static_cast<float>(formula(e.name, shape, static_cast<int64_t>(i)));
    }
    from_torch(layouts[k], e.spec.shape, torch.data(), store.data(e));
  }
}

}  // namespace xtrain::testing
