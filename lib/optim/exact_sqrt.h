// ExactSqrt: the IEEE square root of a float, for Eigen's unaryExpr. Eigen's vectorized sqrt
// approximates it (EIGEN_FAST_MATH), so an element's value would depend on whether it falls in
// a vector or in a scalar tail, that is on where a thread's chunk begins: the replicas of a job
// placed differently would drift apart.
#pragma once

#include <cmath>

namespace xtrain {

struct ExactSqrt {
  float operator()(float x) const { return std::sqrt(x); }
};

}  // namespace xtrain
