#include "lib/kernels/activations.h"

namespace xtrain::kernels {
namespace {

constexpr int64_t kMinChunk = 1 << 14;  // elements

// fn(the activation as a compile-time constant), for any activation.
template <typename Fn>
void with_any_activation(Activation a, Fn&& fn) {
  using A = Activation;
  with_activation<A::kNone, A::kReLU, A::kReLU6, A::kHardswish, A::kHardsigmoid, A::kSiLU,
                  A::kSigmoid, A::kGELU>(a, fn);
}

}  // namespace

void activation_forward(Activation a, int64_t n, ConstElements x, Elements y, const Exec& ex) {
  with_any_activation(a, [&](auto act) {
    constexpr Activation kAct = decltype(act)::value;
    with_typed(x, [&](const auto* in) {
      with_typed(y, [&](auto* out) {
        parallel_for(
            ex, n,
            [&](int64_t b, int64_t e) {
              for (int64_t i = b; i < e; ++i) store(activate<kAct>(value(in + i)), out + i);
            },
            kMinChunk);
      });
    });
  });
}

void activation_backward(Activation a, int64_t n, ConstElements x, ConstElements dy, Elements dx,
                         const Exec& ex) {
  XTRAIN_CHECK(dx.type == x.type, "activation_backward: dx's element type differs from x's");
  with_any_activation(a, [&](auto act) {
    constexpr Activation kAct = decltype(act)::value;
    with_typed(x, [&](const auto* in) {
      using X = std::remove_const_t<std::remove_pointer_t<decltype(in)>>;
      X* dgrad = static_cast<X*>(dx.data);
      with_typed(dy, [&](const auto* grad) {
        parallel_for(
            ex, n,
            [&](int64_t b, int64_t e) {
              for (int64_t i = b; i < e; ++i) {
                store(through_activation<kAct>(value(in + i), value(grad + i)), dgrad + i);
              }
            },
            kMinChunk);
      });
    });
  });
}

}  // namespace xtrain::kernels
