#include "lib/kernels/smooth_activations.h"

#include "lib/kernels/elementwise_map.h"

namespace xtrain::kernels {

void silu_forward(int64_t n, ConstElements x, Elements y, const Exec& ex) {
  map_elements(n, x, y, ex, [](float v) { return silu(v); });
}

void silu_backward(int64_t n, ConstElements x, ConstElements dy, Elements dx, const Exec& ex) {
  map_gradients(n, x, dy, dx, ex, "silu_backward",
                [](float v, float g) { return silu_grad(v, g); });
}

void sigmoid_forward(int64_t n, ConstElements x, Elements y, const Exec& ex) {
  map_elements(n, x, y, ex, [](float v) { return sigmoid(v); });
}

void sigmoid_backward(int64_t n, ConstElements x, ConstElements dy, Elements dx, const Exec& ex) {
  map_gradients(n, x, dy, dx, ex, "sigmoid_backward",
                [](float v, float g) { return sigmoid_grad(v, g); });
}

}  // namespace xtrain::kernels
