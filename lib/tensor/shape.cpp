#include "lib/tensor/shape.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace xtrain {

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

std::string Shape::str() const { return fmt::format("[{}]", fmt::join(dims_, ", ")); }

}  // namespace xtrain
