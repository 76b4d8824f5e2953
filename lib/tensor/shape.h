// Shape: the dimensions of a dense row-major tensor. Activations are NHWC: {n, h, w, c}.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace xtrain {

class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t operator[](int i) const { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t numel() const;
  std::string str() const;  // "[2, 5, 5, 3]"

  bool operator==(const Shape& other) const { return dims_ == other.dims_; }
  bool operator!=(const Shape& other) const { return dims_ != other.dims_; }

 private:
  std::vector<int64_t> dims_;
};

}  // namespace xtrain
