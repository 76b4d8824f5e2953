#include "lib/kernels/hard_activations.h"

#include "lib/kernels/elementwise_map.h"

namespace xtrain::kernels {

void hardswish_forward(int64_t n, ConstElements x, Elements y, const Exec& ex) {
  map_elements(n, x, y, ex, [](float v) { return hardswish(v); });
}

void hardswish_backward(int64_t n, ConstElements x, ConstElements dy, Elements dx, const Exec& ex) {
  map_gradients(n, x, dy, dx, ex, "hardswish_backward",
                [](float v, float g) { return hardswish_grad(v, g); });
}

void hardsigmoid_forward(int64_t n, ConstElements x, Elements y, const Exec& ex) {
  map_elements(n, x, y, ex, [](float v) { return hardsigmoid(v); });
}

void hardsigmoid_backward(int64_t n, ConstElements x, ConstElements dy, Elements dx,
                          const Exec& ex) {
  map_gradients(n, x, dy, dx, ex, "hardsigmoid_backward",
                [](float v, float g) { return hardsigmoid_grad(v, g); });
}

}  // namespace xtrain::kernels
