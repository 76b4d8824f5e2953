// Elements: a kernel's pointer to activations stored as float32 or as bfloat16. A bfloat16 plan
// stores some activations in bfloat16 (plan.h: those its producer can write so and every reader
// can read so), and the kernels that touch them take Elements instead of float*. Both convert
// from a plain float pointer, so float32 callers pass float* as before.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "lib/tensor/bfloat16.h"
#include "lib/tensor/element_type.h"

namespace xtrain {

struct ConstElements {
  ConstElements(const float* p) : data(p), type(ElementType::kFloat32) {}        // NOLINT: implicit
  ConstElements(const BFloat16* p) : data(p), type(ElementType::kBFloat16) {}    // NOLINT: implicit
  ConstElements(std::nullptr_t) : data(nullptr), type(ElementType::kFloat32) {}  // NOLINT: none
  ConstElements(const void* p, ElementType t) : data(p), type(t) {}

  const float* f32() const { return static_cast<const float*>(data); }
  const BFloat16* bf16() const { return static_cast<const BFloat16*>(data); }
  // The elements from element i on.
  ConstElements at(int64_t i) const {
    return type == ElementType::kFloat32 ? ConstElements(f32() + i) : ConstElements(bf16() + i);
  }

  const void* data;
  ElementType type;
};

struct Elements {
  Elements(float* p) : data(p), type(ElementType::kFloat32) {}              // NOLINT: implicit
  Elements(BFloat16* p) : data(p), type(ElementType::kBFloat16) {}          // NOLINT: implicit
  Elements(std::nullptr_t) : data(nullptr), type(ElementType::kFloat32) {}  // NOLINT: none
  Elements(void* p, ElementType t) : data(p), type(t) {}

  float* f32() const { return static_cast<float*>(data); }
  BFloat16* bf16() const { return static_cast<BFloat16*>(data); }
  operator ConstElements() const { return {data, type}; }  // NOLINT: implicit
  Elements at(int64_t i) const {
    return type == ElementType::kFloat32 ? Elements(f32() + i) : Elements(bf16() + i);
  }

  void* data;
  ElementType type;
};

// dst[i] = src[i] for i < n, rounded (to_bfloat16) where dst is bfloat16. The loop vectorizes.
inline void write_floats(const float* src, int64_t n, Elements dst) {
  if (dst.type == ElementType::kFloat32) {
    std::copy_n(src, n, dst.f32());
    return;
  }
  BFloat16* out = dst.bf16();
  for (int64_t i = 0; i < n; ++i) out[i] = to_bfloat16(src[i]);
}

// An element of either storage as a float (exactly).
inline float value(const float* p) { return *p; }
inline float value(const BFloat16* p) { return to_float(*p); }
// Stores a float as an element of either storage (rounded to nearest even where bfloat16).
inline void store(float v, float* p) { *p = v; }
inline void store(float v, BFloat16* p) { *p = to_bfloat16(v); }

// Calls fn with the elements (ConstElements or Elements) as a typed pointer (float* or
// BFloat16*, const for ConstElements), so that a kernel templated on its storage is instantiated
// for both.
template <typename SomeElements, typename Fn>
void with_typed(SomeElements elements, Fn&& fn) {
  if (elements.type == ElementType::kBFloat16) {
    fn(elements.bf16());
  } else {
    fn(elements.f32());
  }
}

}  // namespace xtrain
