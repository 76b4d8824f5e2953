// BatchNorm2d as torch.nn.BatchNorm2d: weight 1, bias 0, running_mean 0, running_var 1,
// num_batches_tracked; momentum 0.1, eps 1e-5. Training normalizes with the batch statistics
// and updates the running ones; evaluation uses the running ones. With `relu`, the ReLU that
// follows it runs in the same passes (y = max(bn(x), 0); the backward masks dy with y > 0), as
// GraphBuilder::batchnorm_relu builds it.
#pragma once

#include "lib/kernels/batchnorm.h"
#include "lib/nn/layer.h"

namespace xtrain {

class BatchNorm2d : public Layer {
 public:
  static constexpr float kEps = 1e-5f;
  static constexpr float kMomentum = 0.1f;

  BatchNorm2d(std::string name, int num_features, bool relu = false);

  const char* type() const override { return relu_ ? "BatchNorm2d+ReLU" : "BatchNorm2d"; }
  std::vector<ParamSpec> param_specs() const override;
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  bool backward_reads_output() const override { return relu_; }
  size_t saved_floats(const std::vector<Shape>& inputs) const override;  // mean, inv_std
  void forward(const Step& s) const override;
  void backward(const Step& s) const override;

 private:
  kernels::BatchNormShape kernel_shape(const Shape& x) const;

  int num_features_;
  bool relu_;
};

}  // namespace xtrain
