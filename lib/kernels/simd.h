// simd: the few vector operations the GEMM micro-kernel, its packers and the depthwise convolutions
// need, over the widest float vector the build targets: AVX-512 (16 lanes), AVX2 + FMA (8 lanes),
// or a plain 4-lane struct the compiler vectorizes as it can (XTRAIN_PORTABLE builds). Results
// differ between these builds (fused vs separate multiply-add) but never between runs or thread
// counts of one build.
#pragma once

#include <utility>

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
inline Vec add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
inline Vec mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
inline Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }  // a * b + c
// Transposes the 16 x 16 block held in rows[0..15] (rows[i] becomes lane i of every row): pairs
// of lanes, then of 64-bit halves, then of 128-bit quarters are exchanged.
inline void transpose(Vec (&rows)[kLanes]) {
  Vec t[kLanes];
  for (int i = 0; i < kLanes; i += 2) {
    t[i] = _mm512_unpacklo_ps(rows[i], rows[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(rows[i], rows[i + 1]);
  }
  const auto lo64 = [](Vec a, Vec b) {
    return _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
  };
  const auto hi64 = [](Vec a, Vec b) {
    return _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
  };
  for (int i = 0; i < kLanes; i += 4) {
    rows[i] = lo64(t[i], t[i + 2]);
    rows[i + 1] = hi64(t[i], t[i + 2]);
    rows[i + 2] = lo64(t[i + 1], t[i + 3]);
    rows[i + 3] = hi64(t[i + 1], t[i + 3]);
  }
  for (int g = 0; g < kLanes; g += 8) {  // quarters 0 and 2 of rows i and i + 4, then 1 and 3
    for (int i = g; i < g + 4; ++i) {
      t[i] = _mm512_shuffle_f32x4(rows[i], rows[i + 4], 0x88);
      t[i + 4] = _mm512_shuffle_f32x4(rows[i], rows[i + 4], 0xdd);
    }
  }
  for (int i = 0; i < kLanes / 2; ++i) {
    rows[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    rows[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd);
  }
}
#elif defined(__AVX2__) && defined(__FMA__)
constexpr int kLanes = 8;
using Vec = __m256;
inline Vec zero() { return _mm256_setzero_ps(); }
inline Vec load(const float* p) { return _mm256_loadu_ps(p); }
inline Vec broadcast(const float* p) { return _mm256_broadcast_ss(p); }
inline void store(float* p, Vec v) { _mm256_storeu_ps(p, v); }
inline Vec add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
inline Vec mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
inline Vec fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
inline void transpose(Vec (&rows)[kLanes]) {  // the 8 x 8 block: lanes, pairs, then halves
  Vec t[kLanes];
  for (int i = 0; i < kLanes; i += 2) {
    t[i] = _mm256_unpacklo_ps(rows[i], rows[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(rows[i], rows[i + 1]);
  }
  for (int i = 0; i < kLanes; i += 4) {
    rows[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    rows[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xee);
    rows[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    rows[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xee);
  }
  for (int i = 0; i < kLanes / 2; ++i) {
    t[i] = _mm256_permute2f128_ps(rows[i], rows[i + 4], 0x20);
    t[i + 4] = _mm256_permute2f128_ps(rows[i], rows[i + 4], 0x31);
  }
  for (int i = 0; i < kLanes; ++i) rows[i] = t[i];
}
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
inline Vec add(Vec a, Vec b) {
  for (int i = 0; i < kLanes; ++i) a.v[i] += b.v[i];
  return a;
}
inline Vec mul(Vec a, Vec b) {
  for (int i = 0; i < kLanes; ++i) a.v[i] *= b.v[i];
  return a;
}
inline Vec fma(Vec a, Vec b, Vec c) {
  for (int i = 0; i < kLanes; ++i) c.v[i] += a.v[i] * b.v[i];
  return c;
}
inline void transpose(Vec (&rows)[kLanes]) {
  for (int i = 0; i < kLanes; ++i) {
    for (int j = i + 1; j < kLanes; ++j) std::swap(rows[i].v[j], rows[j].v[i]);
  }
}
#endif

}  // namespace xtrain::kernels::simd
