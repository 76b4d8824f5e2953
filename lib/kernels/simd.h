// simd: the few vector operations the GEMM micro-kernel needs, over the widest float vector the
// build targets: AVX-512 (16 lanes), AVX2 + FMA (8 lanes), or a plain 4-lane struct the compiler
// vectorizes as it can (XTRAIN_PORTABLE builds). Results differ between these builds (fused vs
// separate multiply-add) but never between runs or thread counts of one build.
#pragma once

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

namespace xtrain::kernels::simd {

#if defined(__AVX512F__)
constexpr int kLanes = 16;
using Vec = __m512;
inline Vec zero() { return _mm512_setzero_ps(); }
inline Vec load(const float* p) { return _mm512_loadu_ps(p); }
inline Vec broadcast(const float* p) { return _mm512_set1_ps(*p); }
inline void store(float* p, Vec v) { _mm512_storeu_ps(p, v); }
inline Vec mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
inline Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }  // a * b + c
#elif defined(__AVX2__) && defined(__FMA__)
constexpr int kLanes = 8;
using Vec = __m256;
inline Vec zero() { return _mm256_setzero_ps(); }
inline Vec load(const float* p) { return _mm256_loadu_ps(p); }
inline Vec broadcast(const float* p) { return _mm256_broadcast_ss(p); }
inline void store(float* p, Vec v) { _mm256_storeu_ps(p, v); }
inline Vec mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
inline Vec fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
#else
constexpr int kLanes = 4;
struct Vec {
  float v[kLanes];
};
inline Vec zero() { return Vec{}; }
inline Vec load(const float* p) { return Vec{{p[0], p[1], p[2], p[3]}}; }
inline Vec broadcast(const float* p) { return Vec{{*p, *p, *p, *p}}; }
inline void store(float* p, Vec v) {
  for (int i = 0; i < kLanes; ++i) p[i] = v.v[i];
}
inline Vec mul(Vec a, Vec b) {
  for (int i = 0; i < kLanes; ++i) a.v[i] *= b.v[i];
  return a;
}
inline Vec fma(Vec a, Vec b, Vec c) {
  for (int i = 0; i < kLanes; ++i) c.v[i] += a.v[i] * b.v[i];
  return c;
}
#endif

}  // namespace xtrain::kernels::simd
