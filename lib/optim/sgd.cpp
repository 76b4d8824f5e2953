#include "lib/optim/sgd.h"

#include <Eigen/Core>
#include <algorithm>

#include "lib/base/check.h"

namespace xtrain {

SGD::SGD(const SGDOptions& options, size_t num_params) : options_(options), momentum_(num_params) {
  XTRAIN_CHECK(options.momentum >= 0.0f, "--momentum must be >= 0, got {}", options.momentum);
  XTRAIN_CHECK(options.weight_decay >= 0.0f, "--weight_decay must be >= 0, got {}",
               options.weight_decay);
  XTRAIN_CHECK(!options.nesterov || options.momentum > 0.0f, "--nesterov needs a momentum > 0");
}

size_t SGD::state_bytes_for(size_t num_params) { return num_params * sizeof(float); }

void SGD::step(float* params, const float* grads, float lr, const Exec& ex) {
  const int64_t n = static_cast<int64_t>(momentum_.size());
  float* momentum_buffer = momentum_.data();
  const float mu = options_.momentum, wd = options_.weight_decay;
  const bool nesterov = options_.nesterov;
  parallel_for(
      ex, n,
      [&](int64_t begin, int64_t end) {
        Eigen::Map<Eigen::ArrayXf> p(params + begin, end - begin);
        Eigen::Map<Eigen::ArrayXf> buf(momentum_buffer + begin, end - begin);
        const Eigen::Map<const Eigen::ArrayXf> g(grads + begin, end - begin);
        const auto d = g + wd * p;  // an expression: read where it is used, before p changes
        if (mu == 0.0f) {
          p -= lr * d;
        } else if (!nesterov) {
          buf = mu * buf + d;
          p -= lr * buf;
        } else {
          buf = mu * buf + d;
          p -= lr * (d + mu * buf);
        }
      },
      /*min_chunk=*/1 << 14);
}

std::vector<StateBuffer> SGD::state() { return {{"momentum_buffer", momentum_.data()}}; }

void SGD::copy_state_from(const SGD& other) {
  XTRAIN_CHECK(other.momentum_.size() == momentum_.size(),
               "copy_state_from needs an SGD over as many parameters");
  std::copy_n(other.momentum_.data(), momentum_.size(), momentum_.data());
}

}  // namespace xtrain
