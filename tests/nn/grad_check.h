// Finite-difference gradient checks for layers, and the check of outputs written as columns. The
// objective is L = sum(output * r) for a fixed random r, so its gradient is the layer's backward
// with doutput = r; every input element and every parameter element is perturbed by +-step and (L+
// - L-) / (2 step) compared with it. A layer that can rebuild its output (rebuild_cost) runs the
// backward on a rebuilt output, which must hold the forward's bits and leave the layer's state
// alone.
#pragma once

#include <cstdint>
#include <vector>

#include "lib/nn/layer.h"

namespace xtrain::testing {

// How the random inputs are drawn, to keep perturbations away from kinks.
enum class InputValues {
  kUniform,       // uniform in [-1, 1)
  kAwayFromZero,  // |x| in [0.2, 1): ReLU never switches
  kDistinct,      // a shuffled ramp with gaps of 0.05, offset by 0.0125: max-pool never switches,
                  // and no value or sum of two values is within a step of 0 (ReLU, a sum and ReLU)
};

struct GradCheckOptions {
  float step = 1e-2f;
  float rtol = 1e-3f;
  float atol = 1e-3f;
  InputValues inputs = InputValues::kUniform;
  float param_scale = 1.0f;  // parameters uniform in [-param_scale, param_scale)
  uint32_t seed = 1;
  int num_classes_for_labels = 0;  // > 0: the layer reads labels in [0, this)
  bool loss = false;       // the layer is a loss: it starts the backward, so r = 1 (L = the loss)
  float label_mix = 1.0f;  // LayerCall::label_mix
};

void check_layer_gradients(const Layer& layer, const std::vector<Shape>& input_shapes,
                           const GradCheckOptions& options);

// For a layer that writes columns (Layer::writes_columns): run with its output and the output's
// gradient as columns of wider rows (TensorView::row_stride, a part a concatenation holds in
// place), it writes and reads the same bits as with dense rows, and leaves the other columns
// alone; so it does when the backward reads a dense output (a rebuilt copy) beside the strided
// gradient.
void check_output_in_columns(const Layer& layer, const std::vector<Shape>& input_shapes,
                             const GradCheckOptions& options);

}  // namespace xtrain::testing
