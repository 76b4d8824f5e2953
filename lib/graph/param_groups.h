// param_tensors: a replica's parameter tensors as its optimizer sees them (ParamTensor), each
// with the weight decay torchvision's reference script gives it (its utils.set_weight_decay):
// - a parameter named "bias" takes --bias_weight_decay, and a transformer's "class_token",
//   "position_embedding" or "relative_position_bias_table" --transformer_embedding_decay,
//   where given (these match the parameter's own name and come first);
// - else a normalization layer's parameters take --norm_weight_decay, where given;
// - else --weight_decay.
// LARS and LAMB adapt every tensor but the normalization layers' and the biases (MLPerf's LARS
// skips the same).
// Not here: the updates (lib/optim).
#pragma once

#include <vector>

#include "lib/graph/graph.h"
#include "lib/graph/param_store.h"
#include "lib/optim/optimizer.h"

namespace xtrain {

std::vector<ParamTensor> param_tensors(const Graph& graph, const ParamStore& store,
                                       const OptimizerOptions& options);

}  // namespace xtrain
