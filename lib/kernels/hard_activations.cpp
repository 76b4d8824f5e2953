#include "lib/kernels/hard_activations.h"

#include "lib/base/check.h"

namespace xtrain::kernels {
namespace {

constexpr int64_t kMinChunk = 1 << 14;  // elements

// out[i] = fn(in[i]) over n elements, threads splitting them.
template <typename Fn>
void map(int64_t n, ConstElements x, Elements y, const Exec& ex, Fn&& fn) {
  with_typed(x, [&](const auto* in) {
    with_typed(y, [&](auto* out) {
      parallel_for(
          ex, n,
          [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) store(fn(value(in + i)), out + i);
          },
          kMinChunk);
    });
  });
}

// dx[i] = fn(x[i], dy[i]) over n elements; dy and dx of one element type.
template <typename Fn>
void map_grad(int64_t n, ConstElements x, ConstElements dy, Elements dx, const Exec& ex,
              const char* what, Fn&& fn) {
  XTRAIN_CHECK(dy.type == dx.type, "{}: dy and dx differ in element type", what);
  with_typed(x, [&](const auto* in) {
    with_typed(dy, [&](const auto* grad) {
      using G = std::remove_const_t<std::remove_pointer_t<decltype(grad)>>;
      G* dgrad = static_cast<G*>(dx.data);
      parallel_for(
          ex, n,
          [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) {
              store(fn(value(in + i), value(grad + i)), dgrad + i);
            }
          },
          kMinChunk);
    });
  });
}

}  // namespace

void hardswish_forward(int64_t n, ConstElements x, Elements y, const Exec& ex) {
  map(n, x, y, ex, [](float v) { return hardswish(v); });
}

void hardswish_backward(int64_t n, ConstElements x, ConstElements dy, Elements dx, const Exec& ex) {
  map_grad(n, x, dy, dx, ex, "hardswish_backward",
           [](float v, float g) { return hardswish_grad(v, g); });
}

void hardsigmoid_forward(int64_t n, ConstElements x, Elements y, const Exec& ex) {
  map(n, x, y, ex, [](float v) { return hardsigmoid(v); });
}

void hardsigmoid_backward(int64_t n, ConstElements x, ConstElements dy, Elements dx,
                          const Exec& ex) {
  map_grad(n, x, dy, dx, ex, "hardsigmoid_backward",
           [](float v, float g) { return hardsigmoid_grad(v, g); });
}

}  // namespace xtrain::kernels
