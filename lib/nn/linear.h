// Linear as torch.nn.Linear: y = x weight^T + bias, weight [out, in] (PyTorch's layout), drawn
// as its family's WeightInit says (by default as nn.Linear's reset_parameters does).
#pragma once

#include "lib/kernels/linear.h"
#include "lib/nn/layer.h"
#include "lib/nn/weight_init.h"

namespace xtrain {

class Linear : public Layer {
 public:
  Linear(std::string name, int in_features, int out_features, WeightInit init = {});

  const char* type() const override { return "Linear"; }
  std::vector<ParamSpec> param_specs() const override;
  Shape output_shape(const std::vector<Shape>& inputs) const override;
  bool backward_reads_output() const override { return false; }
  int64_t macs(const std::vector<Shape>& inputs) const override;
  void forward(const LayerCall& s) const override;
  void backward(const LayerCall& s) const override;

 private:
  kernels::LinearShape kernel_shape(const Shape& x) const;

  int in_features_, out_features_;
  WeightInit init_;
};

}  // namespace xtrain
