#include "lib/kernels/gelu.h"

#include <type_traits>

#include "lib/base/check.h"

namespace xtrain::kernels {
namespace {

constexpr int64_t kMinChunk = 1 << 13;  // elements: erf and exp make each one dearer than a ReLU

}  // namespace

void gelu_forward(int64_t n, ConstElements x, Elements y, const Exec& ex) {
  with_typed(x, [&](const auto* in) {
    with_typed(y, [&](auto* out) {
      parallel_for(
          ex, n,
          [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) store(gelu(value(in + i)), out + i);
          },
          kMinChunk);
    });
  });
}

void gelu_backward(int64_t n, ConstElements x, ConstElements dy, Elements dx, const Exec& ex) {
  XTRAIN_CHECK(dx.type == x.type, "gelu_backward: dx's element type differs from x's");
  with_typed(x, [&](const auto* in) {
    using X = std::remove_const_t<std::remove_pointer_t<decltype(in)>>;
    X* dgrad = static_cast<X*>(dx.data);
    with_typed(dy, [&](const auto* grad) {
      parallel_for(
          ex, n,
          [&](int64_t b, int64_t e) {
            for (int64_t i = b; i < e; ++i) {
              store(gelu_grad(value(in + i), value(grad + i)), dgrad + i);
            }
          },
          kMinChunk);
    });
  });
}

}  // namespace xtrain::kernels
