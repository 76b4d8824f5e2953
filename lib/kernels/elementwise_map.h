// The loops of the element-wise activations: one function applied to every element (forward) or
// to every pair of input and output gradient (backward), over Elements of either type, threads
// splitting the elements. The activations' files (hard_activations.cpp, smooth_activations.cpp)
// hand them their scalar formulas.
// Not here: the formulas themselves.
#pragma once

#include <cstdint>
#include <type_traits>

#include "lib/base/check.h"
#include "lib/parallel/exec.h"
#include "lib/tensor/elements.h"

namespace xtrain::kernels {

inline constexpr int64_t kElementwiseMinChunk = 1 << 14;  // elements

// y[i] = fn(x[i]) over n elements.
template <typename Fn>
void map_elements(int64_t n, ConstElements x, Elements y, const Exec& ex, Fn&& fn) {
  with_typed(x, [&](const auto* in) {
    with_typed(y, [&](auto* out) {
      parallel_for(
          ex, n,
          [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) store(fn(value(in + i)), out + i);
          },
          kElementwiseMinChunk);
    });
  });
}

// dx[i] = fn(x[i], dy[i]) over n elements; dy and dx of one element type. what: the kernel's
// name for the error.
template <typename Fn>
void map_gradients(int64_t n, ConstElements x, ConstElements dy, Elements dx, const Exec& ex,
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
          kElementwiseMinChunk);
    });
  });
}

}  // namespace xtrain::kernels
