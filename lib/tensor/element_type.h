// ElementType: the number format of an element, float32 or bfloat16 (bfloat16.h). It says what a
// buffer holds (TensorView::type, Elements::type) and, as Precision (precision.h), what matrix
// products multiply.
#pragma once

#include <cstddef>
#include <cstdint>

namespace xtrain {

enum class ElementType { kFloat32, kBFloat16 };

// The name logs, flags and checkpoints use: "float32" or "bfloat16".
inline const char* name(ElementType t) {
  return t == ElementType::kFloat32 ? "float32" : "bfloat16";
}

// Floats of storage that n elements of type take (a bfloat16 pair fills one).
inline size_t floats_for(int64_t n, ElementType type) {
  return static_cast<size_t>(type == ElementType::kFloat32 ? n : (n + 1) / 2);
}

}  // namespace xtrain
