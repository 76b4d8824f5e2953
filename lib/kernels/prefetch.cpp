#include "lib/kernels/prefetch.h"

#include <cpuid.h>

#include <cstring>

namespace xtrain::kernels {
namespace {

constexpr int kZen4Family = 0x19;

// CPUID leaf 0's vendor and leaf 1's family (base family, plus the extended family when the base
// is 0xf), as the vendors document them.
struct CpuFamily {
  bool amd = false;
  int family = 0;
};

CpuFamily cpu_family() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  CpuFamily cpu;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0) return cpu;
  char vendor[12];
  std::memcpy(vendor, &ebx, 4);
  std::memcpy(vendor + 4, &edx, 4);
  std::memcpy(vendor + 8, &ecx, 4);
  cpu.amd = std::memcmp(vendor, "AuthenticAMD", 12) == 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return cpu;
  const int base = (eax >> 8) & 0xf;
  cpu.family = base == 0xf ? base + ((eax >> 20) & 0xff) : base;
  return cpu;
}

}  // namespace

bool batchnorm_prefetch_pays(bool amd, int family, bool avx512) {
  return !(amd && family == kZen4Family && avx512);
}

bool batchnorm_prefetch_pays() {
  static const bool pays = [] {
    const CpuFamily cpu = cpu_family();
    return batchnorm_prefetch_pays(cpu.amd, cpu.family, __builtin_cpu_supports("avx512f"));
  }();
  return pays;
}

}  // namespace xtrain::kernels
