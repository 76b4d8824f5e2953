// Random variates beyond the uniform ones Rng draws: the normal, gamma, beta and Dirichlet
// distributions, for mixup's and CutMix's lambda (Beta(alpha, alpha), as torch's
// _sample_dirichlet([a, a])[0] draws it) and AugMix's weights (augmix.h). Each is a fixed function
// of the generator's draws, so it keeps the determinism of the keys the generator was seeded with.
// Not here: the generator (rng.h).
#pragma once

#include <vector>

#include "data/rng.h"

namespace xtrain {

// Standard normal (Box-Muller, two uniform draws).
double normal(Rng& rng);
// Gamma(shape, 1), shape > 0 (Marsaglia and Tsang 2000; for shape < 1, Gamma(shape + 1) scaled
// by u^(1 / shape)).
double gamma(Rng& rng, double shape);
// Beta(a, b) = X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b).
double beta(Rng& rng, double a, double b);
// Dirichlet(alpha, ..., alpha) over n >= 1 weights, as torch._sample_dirichlet gives it for a
// float32 alpha: n Gamma(alpha) draws over their sum, in doubles, then rounded to float32 and
// kept within [FLT_MIN, the float below 1].
std::vector<float> dirichlet(Rng& rng, double alpha, int n);

}  // namespace xtrain
