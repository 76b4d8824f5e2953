#include "lib/kernels/prefetch.h"

#include <cpuid.h>

namespace xtrain::kernels {
namespace {

constexpr int kAmdFamily19h = 0x19;

// CPUID leaf 1's family: the base family, plus the extended family when the base is 0xf, as the
// vendors document it (GCC's __builtin_cpu_is names vendors and models, not families).
int cpu_family() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return 0;
  const int base = (eax >> 8) & 0xf;
  return base == 0xf ? base + ((eax >> 20) & 0xff) : base;
}

}  // namespace

bool batchnorm_prefetch_pays(bool amd, int family, bool avx512) {
  return !(amd && family == kAmdFamily19h && avx512);
}

bool batchnorm_prefetch_pays() {
  static const bool pays = [] {
    __builtin_cpu_init();
    return batchnorm_prefetch_pays(__builtin_cpu_is("amd"), cpu_family(),
                                   __builtin_cpu_supports("avx512f"));
  }();
  return pays;
}

}  // namespace xtrain::kernels
