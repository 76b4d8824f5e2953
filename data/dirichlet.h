// dirichlet: Gamma and symmetric Dirichlet draws from xtrain's Rng, for AugMix's mixing weights.
// Gamma by Marsaglia and Tsang's method (shape >= 1; below 1, boosted by U^(1/shape)), its normal
// draws by Box-Muller, as torch's _sample_dirichlet draws Gamma (not with torch's generator).
// Deterministic: the same Rng state gives the same draws.
// Not here: what the weights mix (augmix.h).
#pragma once

#include <vector>

#include "data/rng.h"

namespace xtrain {

// A Gamma(shape, 1) draw, shape > 0.
double sample_gamma(double shape, Rng& rng);

// A draw of Dirichlet(alpha, ..., alpha) over n >= 1 weights, as torch._sample_dirichlet gives it
// for a float32 alpha: n Gamma(alpha) draws over their sum, in doubles, then rounded to float32
// and kept within [FLT_MIN, the float below 1].
std::vector<float> sample_dirichlet(double alpha, int n, Rng& rng);

}  // namespace xtrain
