// Layer: one operation of a model graph. A layer holds hyper-parameters and says which
// parameters it has, what shape it produces and how much scratch it needs; forward and backward
// call kernels on the views the plan hands it in a LayerCall. Layers are immutable once built, so
// one graph serves every replica. Not here: buffer allocation (graph/plan), threads (parallel/).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/parallel/exec.h"
#include "lib/tensor/precision.h"
#include "lib/tensor/tensor.h"

namespace xtrain {

// What a named tensor of a layer is: a trainable parameter (has a gradient and optimizer state),
// a float buffer (BatchNorm running statistics) or an int64 counter (num_batches_tracked).
enum class ParamKind { kParameter, kBuffer, kCounter };

// How a parameter or buffer starts out, the distribution its family's torchvision code draws it
// from (weight_init.h turns a family's rule and a layer's fans into one).
enum class Init {
  kZeros,
  kOnes,
  kNormal,           // normal(0, scale)
  kTruncatedNormal,  // normal(0, scale) cut to [-2, 2], as torch's trunc_normal_(a=-2, b=2)
  kUniform,          // uniform(-scale, scale)
  kConstant,         // every element = scale (ConvNeXt's layer scale)
};

struct ParamSpec {
  std::string name;  // state_dict suffix: "weight", "running_var", ...
  Shape shape;       // in the layout the kernels use (Conv2d weight: [KH, KW, C_in, C_out])
  ParamKind kind = ParamKind::kParameter;
  Init init = Init::kZeros;
  // The standard deviation or bound of kNormal, kTruncatedNormal, kUniform; kConstant's value.
  float scale = 0.0f;
};

// The views a plan hands a layer for one call. Built once when a plan is compiled; a training
// step only reads it. Parameters, buffers and counters come in the order of param_specs().
struct LayerCall {
  std::vector<TensorView> inputs;
  TensorView output;
  std::vector<TensorView> dinputs;  // an empty view: that gradient is not needed (the stem's image)
  // Parallel to dinputs (or empty: none): backward adds that gradient into what its view holds
  // instead of overwriting it (Layer::backward_adds).
  std::vector<bool> adds_to_dinputs;
  TensorView doutput;
  std::vector<float*> params;
  std::vector<float*> grads;  // parallel to params
  std::vector<float*> buffers;
  std::vector<int64_t*> counters;
  float* saved = nullptr;           // saved_floats(): kept from forward to backward
  float* workspace = nullptr;       // workspace_floats(): scratch within one call
  const int32_t* labels = nullptr;  // loss layers only
  // Loss layers only, set with the labels for every step: the weight of each sample's own label
  // in a batch mixed with itself rolled by one (kernels/cross_entropy.h); 1: hard labels.
  const float* label_mix = nullptr;
  bool training = true;
  // Set with ex for every run, like it: the key of this training step's random draws (Dropout's
  // masks, see kernels/dropout.h). The backward and rebuilds see the forward's key.
  uint32_t step_key = 0;
  // Set with step_key: the key of this step's draws per sample, which every core shares
  // (StochasticDepth's masks), and the index of this call's first sample in the step's whole
  // batch, so that a sample draws the same whichever core holds it.
  uint32_t batch_key = 0;
  int64_t first_sample = 0;
  // What convolutions and Linear layers multiply in (precision.h); the plan's, on every call.
  Precision precision = Precision::kFloat32;
  Exec ex;
};

class Layer {
 public:
  explicit Layer(std::string name) : name_(std::move(name)) {}
  virtual ~Layer() = default;

  const std::string& name() const { return name_; }
  virtual const char* type() const = 0;  // PyTorch's class name: "Conv2d"

  virtual std::vector<ParamSpec> param_specs() const { return {}; }
  // Whether it is a normalization layer (torchvision's norm classes: BatchNorm, LayerNorm,
  // GroupNorm, ...), whose parameters optimizers may treat apart (param_groups.h).
  virtual bool is_normalization() const { return false; }

  // The output shape for these inputs; throws xtrain::Error naming the layer on a mismatch.
  virtual Shape output_shape(const std::vector<Shape>& inputs) const = 0;
  virtual size_t saved_floats(const std::vector<Shape>& inputs) const { return 0; }
  // `gradient_types`: per input, how the plan stores the gradient the backward writes for it (a
  // bfloat16 gradient may need float32 scratch to be summed in), or none: no backward writes one
  // (the image's, an evaluation plan's).
  virtual size_t workspace_floats(
      const std::vector<Shape>& inputs,
      const std::vector<std::optional<ElementType>>& gradient_types) const {
    return 0;
  }
  // Multiply-adds of one forward pass over these inputs (the whole batch).
  virtual int64_t macs(const std::vector<Shape>& inputs) const { return 0; }

  // Whether backward reads input `slot`'s or the output's data (besides doutput, saved and
  // parameters). A plan keeps an activation only while some forward or backward still reads it.
  virtual bool backward_reads_input(int slot) const { return true; }
  virtual bool backward_reads_output() const { return true; }
  // What recompute_output() costs, when a training plan that multiplies in `multiplies`
  // rebuilds the output for the backward instead of keeping it from the forward (see plan.h for
  // when it does).
  enum class Rebuild {
    kNo,          // the output is kept
    kOnePass,     // one pass over memory (element-wise layers)
    kArithmetic,  // real arithmetic, little for the bytes it saves (a pointwise Conv2d over few
                  // channels)
  };
  virtual Rebuild rebuild_cost(Precision multiplies) const { return Rebuild::kNo; }
  // Writes the output exactly as the last forward did (bit for bit, on the same threads), from
  // the same inputs and saved, changing no state (no running statistics, no counters). Called
  // only when rebuild_cost() is not kNo.
  virtual void recompute_output(const LayerCall& s) const { forward(s); }

  // bfloat16 plans store a value in bfloat16 when its producer can write it so and every reader
  // can read it so (plan_phases.h); the views then say so (TensorView::type). Conv2d,
  // BatchNorm2d and MaxPool2d do both.
  virtual bool writes_bfloat16() const { return false; }
  virtual bool reads_bfloat16(int slot) const { return false; }

  // The output may be columns of a wider buffer (TensorView::row_stride): forward writes it, and
  // backward reads it and its gradient, with that stride. A concatenation whose inputs such
  // layers write holds them in place and copies nothing (plan_phases.h). BatchNorm2d, ReLU,
  // MaxPool2d and Concat do; is_concatenation() says which layer is one (Concat).
  virtual bool writes_columns() const { return false; }
  virtual bool is_concatenation() const { return false; }

  // Whether backward may write dinputs[slot] into doutput's bytes, where the two gradients have
  // one element type and size: it reads no element of doutput after writing that element of
  // dinputs[slot]. A training plan then gives them one buffer, a gradient fewer live at the
  // layer's backward (place_buffers in plan_phases.h). BatchNorm2d does.
  virtual bool backward_in_place(int slot) const { return false; }
  // Whether backward can add dinputs[slot] into what its view holds (LayerCall::adds_to_dinputs)
  // for these inputs and gradients (gradient_types as in workspace_floats). A training plan then
  // sums the gradients of a value several layers read by letting the last backward add into
  // another's, not in a pass of its own (place_buffers in plan_phases.h). Conv2d's pointwise
  // layers can.
  virtual bool backward_adds(int slot, const std::vector<Shape>& inputs,
                             const std::vector<std::optional<ElementType>>& gradient_types) const {
    return false;
  }

  virtual void forward(const LayerCall& s) const = 0;
  // Writes every non-empty dinput (overwriting, or adding where adds_to_dinputs says so) and
  // accumulates into grads.
  virtual void backward(const LayerCall& s) const = 0;

 private:
  std::string name_;
};

}  // namespace xtrain
