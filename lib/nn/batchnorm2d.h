// BatchNorm2d as torch.nn.BatchNorm2d: weight 1, bias 0, running_mean 0, running_var 1,
// num_batches_tracked; momentum 0.1, eps 1e-5 unless given (Inception's eps 0.001; MobileNetV3's
// eps 0.001 and momentum 0.01). Training normalizes with the batch statistics and updates the
// running ones; evaluation uses the running ones. What follows it can run in the same passes
// (Fused): the ReLU, y = max(bn(x), 0), as GraphBuilder::batchnorm_relu builds it; the ReLU6,
// y = min(max(bn(x), 0), 6), MobileNet's activation, the Hardswish, MobileNetV3's, or the SiLU,
// EfficientNet's, as GraphBuilder::batchnorm_activation builds them; or a residual sum and the
// ReLU, y = max(bn(x) + residual, 0) with the residual as the second input, as
// GraphBuilder::batchnorm_add_relu builds it. The backward takes dy through the activation's
// derivative (the ReLU's mask where it clamped its output) and hands that to the residual. A
// training plan rebuilds y from x and the saved statistics instead of keeping it
// (recompute_output).
// Without a residual it may take several inputs and normalize their channel concatenation,
// torch.cat(inputs, 1), without building it: each input's channels are normalized on their own
// (BatchNorm is per channel) into their columns of y, and each gets its own gradient. DenseNet's
// norm layers read their growing list of features this way, so no layer copies a growing tensor
// and the concatenations are never kept for the backward.
#pragma once

#include "lib/kernels/batchnorm.h"
#include "lib/nn/layer.h"

namespace xtrain {

class BatchNorm2d : public Layer {
 public:
  static constexpr float kDefaultEps = 1e-5f;
  static constexpr float kMomentum = 0.1f;

  enum class Fused { kNothing, kReLU, kReLU6, kHardswish, kSiLU, kAddReLU };

  BatchNorm2d(std::string name, int num_features, Fused fused = Fused::kNothing,
              float eps = kDefaultEps, float momentum = kMomentum);

  const char* type() const override;
  std::vector<ParamSpec> param_specs() const override;
  bool is_normalization() const override { return true; }
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  bool backward_reads_input(int slot) const override {
    return slot == 0 || fused_ != Fused::kAddReLU;  // not the residual
  }
  // Only a ReLU after a residual reads the output for its mask; a plain ReLU's is recomputed
  // from the input, so the output may go as soon as the next layer's backward has read it.
  bool backward_reads_output() const override { return fused_ == Fused::kAddReLU; }
  bool reads_bfloat16(int slot) const override { return true; }  // inputs and the residual
  bool writes_bfloat16() const override { return true; }
  Rebuild rebuild_cost(Precision) const override { return Rebuild::kOnePass; }
  bool writes_columns() const override { return true; }
  // The input's gradient may overwrite the output's (batchnorm_backward reads each element of dy
  // before writing dx's), where they have one size: not a part of a concatenation. Writing over
  // lines the sums pass has just read is also faster than into a cold buffer: they are still in
  // cache.
  bool backward_in_place(int slot) const override { return slot == 0; }
  // kernels::batchnorm_forward_train's saved: mean, inv_std, scale, shift [C] each.
  size_t saved_floats(const std::vector<Shape>& inputs) const override;
  size_t workspace_floats(
      const std::vector<Shape>& inputs,
      const std::vector<std::optional<ElementType>>& gradient_types) const override;
  void forward(const LayerCall& s) const override;
  void recompute_output(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;

 private:
  // Calls fn(input, kernel shape, first channel) for each input normalized: every input of a
  // concatenation, in order, or input 0 when the second is a residual. Inputs: their Shapes or
  // TensorViews; y_row: the elements from one row of the output to the next.
  template <typename Inputs, typename Fn>
  void for_each_part(const Inputs& inputs, int64_t y_row, Fn&& fn) const;
  ConstElements residual(const LayerCall& s) const;  // null without one
  kernels::Activation activation() const;            // the kernels' name for fused_

  int num_features_;
  Fused fused_;
  float eps_;
  float momentum_;
};

}  // namespace xtrain
