// torchvision's GoogLeNet (Inception v1, Szegedy et al. 2014) without aux logits and without
// transform_input, as torchvision's googlenet(aux_logits=False) builds it for 224x224 images:
// BasicConv2d everywhere (Conv2d without bias, BatchNorm with eps 0.001, ReLU), ceil-mode
// max-pooling, nine Inception blocks of four branches concatenated over channels, the average
// over the grid, Dropout (0.2) and one Linear layer. torchvision's state_dict names and
// initialization.
// Not here: the auxiliary classifiers (aux1, aux2), absent from the state_dict without
// aux_logits.
#pragma once

#include <memory>

#include "lib/graph/graph.h"

namespace xtrain {

std::shared_ptr<const Graph> googlenet(int num_classes);

}  // namespace xtrain
