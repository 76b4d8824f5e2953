#include "tests/nn/grad_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "tests/test_util.h"

namespace xtrain::testing {
namespace {

std::vector<float> draw(size_t n, InputValues kind, uint32_t seed) {
  std::vector<float> v = random_floats(n, seed);
  if (kind == InputValues::kAwayFromZero) {
    for (float& x : v) x = (x < 0 ? -1.0f : 1.0f) * (0.2f + 0.8f * std::fabs(x));
  } else if (kind == InputValues::kDistinct) {
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937(seed));
    for (size_t i = 0; i < n; ++i) {
      v[i] = 0.05f * (static_cast<float>(order[i]) - n / 2.0f) + 0.0125f;
    }
  }
  return v;
}

// Everything one layer call needs, owned here instead of by a plan.
struct LayerHarness {
  std::vector<std::vector<float>> inputs, dinputs, params, grads, buffers;
  std::vector<int64_t> counters;
  std::vector<float> output, doutput, saved, workspace;
  std::vector<int32_t> labels;
  LayerCall call;

  LayerHarness(const Layer& layer, const std::vector<Shape>& shapes, const GradCheckOptions& o) {
    const Shape out_shape = layer.output_shape(shapes);
    uint32_t seed = o.seed;
    for (const Shape& s : shapes) {
      inputs.push_back(draw(s.numel(), o.inputs, seed++));
      dinputs.emplace_back(s.numel());
    }
    const std::vector<ParamSpec> specs = layer.param_specs();
    for (const ParamSpec& spec : specs) {
      const size_t n = std::max<int64_t>(1, spec.shape.numel());
      if (spec.kind == ParamKind::kParameter) {
        params.push_back(draw(n, InputValues::kUniform, seed++));
        for (float& p : params.back()) p *= o.param_scale;
        grads.emplace_back(n);
      } else if (spec.kind == ParamKind::kBuffer) {
        buffers.push_back(draw(n, InputValues::kUniform, seed++));
        for (float& b : buffers.back()) b = std::fabs(b) + 0.5f;  // a plausible variance
      } else {
        counters.push_back(0);
      }
    }
    output.resize(out_shape.numel());
    doutput = o.loss ? std::vector<float>(out_shape.numel(), 1.0f)
                     : random_floats(out_shape.numel(), seed++);
    saved.resize(layer.saved_floats(shapes));
    workspace.resize(layer.workspace_floats(
        shapes, std::vector<std::optional<ElementType>>(shapes.size(), ElementType::kFloat32)));
    labels.resize(shapes[0][0]);
    for (size_t i = 0; i < labels.size(); ++i) {
      labels[i] =
          o.num_classes_for_labels > 0 ? static_cast<int32_t>(i * 7 % o.num_classes_for_labels) : 0;
    }

    for (size_t i = 0; i < shapes.size(); ++i) {
      call.inputs.push_back({inputs[i].data(), shapes[i]});
      call.dinputs.push_back({dinputs[i].data(), shapes[i]});
    }
    call.output = {output.data(), out_shape};
    call.doutput = {doutput.data(), out_shape};
    for (size_t i = 0; i < params.size(); ++i) {
      call.params.push_back(params[i].data());
      call.grads.push_back(grads[i].data());
    }
    for (auto& b : buffers) call.buffers.push_back(b.data());
    for (auto& c : counters) call.counters.push_back(&c);
    call.saved = saved.data();
    call.workspace = workspace.data();
    call.labels = labels.data();
    call.label_mix = &o.label_mix;
    call.training = true;
  }

  double objective(const Layer& layer) {
    layer.forward(call);
    double sum = 0.0;
    for (size_t i = 0; i < output.size(); ++i) sum += double{output[i]} * doutput[i];
    return sum;
  }
};

void compare(const char* what, size_t index, double analytic, double numeric,
             const GradCheckOptions& o, int* failures) {
  const double tol = o.atol + o.rtol * std::fabs(numeric);
  if (std::fabs(analytic - numeric) > tol && ++*failures <= 5) {
    ADD_FAILURE() << what << "[" << index << "]: backward " << analytic << ", finite difference "
                  << numeric;
  }
}

// Perturbs every element of `values` and compares with `analytic`.
void check_elements(const Layer& layer, LayerHarness& h, std::vector<float>& values,
                    const std::vector<float>& analytic, const char* what,
                    const GradCheckOptions& o) {
  int failures = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const float original = values[i];
    values[i] = original + o.step;
    const double plus = h.objective(layer);
    values[i] = original - o.step;
    const double minus = h.objective(layer);
    values[i] = original;
    compare(what, i, analytic[i], (plus - minus) / (2.0 * o.step), o, &failures);
  }
}

// The bits of v, so that NaN sentinels compare equal.
std::vector<uint32_t> bits(const std::vector<float>& v) {
  std::vector<uint32_t> b(v.size());
  std::memcpy(b.data(), v.data(), v.size() * sizeof(float));
  return b;
}

// Rows of `dense` ([rows, c]) as columns [left, left + c) of rows `stride` wide, NaN elsewhere.
std::vector<float> widen(const std::vector<float>& dense, int64_t c, int64_t left, int64_t stride) {
  const int64_t rows = static_cast<int64_t>(dense.size()) / c;
  std::vector<float> wide(rows * stride, std::nanf(""));
  for (int64_t r = 0; r < rows; ++r) {
    std::copy_n(dense.begin() + r * c, c, wide.begin() + r * stride + left);
  }
  return wide;
}

}  // namespace

void check_output_in_columns(const Layer& layer, const std::vector<Shape>& input_shapes,
                             const GradCheckOptions& o) {
  ASSERT_TRUE(layer.writes_columns()) << layer.type();
  LayerHarness dense(layer, input_shapes, o);
  dense.objective(layer);
  layer.backward(dense.call);

  const Shape out = dense.call.output.shape;
  const int64_t c = out[out.rank() - 1], left = 3, stride = c + 5;
  const std::vector<float> y_expected = widen(dense.output, c, left, stride);
  const std::vector<float> dy_expected = widen(dense.doutput, c, left, stride);
  // The output and its gradient in columns; then the output dense beside a gradient in columns,
  // as a rebuilt copy is.
  for (const bool dense_output_in_backward : {false, true}) {
    SCOPED_TRACE(dense_output_in_backward ? "a dense output in the backward" : "in columns");
    LayerHarness wide(layer, input_shapes, o);
    std::vector<float> y(y_expected.size(), std::nanf("")), dy = dy_expected;
    wide.call.output = {y.data() + left, out, ElementType::kFloat32, stride};
    wide.call.doutput = {dy.data() + left, out, ElementType::kFloat32, stride};
    layer.forward(wide.call);
    EXPECT_EQ(bits(y), bits(y_expected)) << layer.type() << ": the output's columns";
    if (dense_output_in_backward) {
      wide.output = dense.output;
      wide.call.output = {wide.output.data(), out};
    }
    layer.backward(wide.call);
    EXPECT_EQ(bits(dy), bits(dy_expected)) << layer.type() << ": the backward wrote dy";
    for (size_t i = 0; i < dense.dinputs.size(); ++i) {
      EXPECT_EQ(bits(wide.dinputs[i]), bits(dense.dinputs[i])) << layer.type() << ": dinput " << i;
    }
    for (size_t i = 0; i < dense.grads.size(); ++i) {
      EXPECT_EQ(bits(wide.grads[i]), bits(dense.grads[i])) << layer.type() << ": grad " << i;
    }
  }
}

void check_layer_gradients(const Layer& layer, const std::vector<Shape>& input_shapes,
                           const GradCheckOptions& o) {
  LayerHarness h(layer, input_shapes, o);
  h.objective(layer);
  if (layer.rebuild_cost(Precision::kBFloat16) !=
      Layer::Rebuild::kNo) {  // bfloat16's rule is wider
    // As a training plan does: rebuild the output over a wiped buffer, bit for bit and changing
    // no state, and run the backward on the rebuilt one.
    const std::vector<float> output = h.output, saved = h.saved;
    const auto buffers = h.buffers;
    const auto counters = h.counters;
    std::fill(h.output.begin(), h.output.end(), std::nanf(""));
    layer.recompute_output(h.call);
    EXPECT_EQ(0, std::memcmp(output.data(), h.output.data(), output.size() * sizeof(float)))
        << layer.type() << ": the rebuilt output differs from the forward's";
    EXPECT_EQ(saved, h.saved) << layer.type() << ": rebuilding changed what the forward saved";
    EXPECT_EQ(buffers, h.buffers) << layer.type() << ": rebuilding changed a buffer";
    EXPECT_EQ(counters, h.counters) << layer.type() << ": rebuilding changed a counter";
  }
  layer.backward(h.call);
  const auto dinputs = h.dinputs;
  const auto grads = h.grads;
  for (size_t i = 0; i < h.inputs.size(); ++i) {
    check_elements(layer, h, h.inputs[i], dinputs[i], "d(input)", o);
  }
  for (size_t i = 0; i < h.params.size(); ++i) {
    check_elements(layer, h, h.params[i], grads[i], "d(param)", o);
  }
}

}  // namespace xtrain::testing
