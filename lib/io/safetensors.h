// Safetensors (huggingface/safetensors): an 8-byte little-endian header length N, N bytes of JSON
// header, then the data region. The header maps each tensor name to {"dtype": "F32", "shape":
// [2, 3], "data_offsets": [begin, end]} (byte offsets into the data region, row-major,
// little-endian) and may hold "__metadata__", a map of strings.
// The reader trusts nothing: every length, type, shape and offset is checked before any tensor
// is read, and a file that is not well-formed is rejected with an xtrain::Error naming the file
// and the problem. Allocations never exceed the file's real size.
// Not here: what the tensors mean (checkpoint.h), how the file is made durable (atomic_file.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace xtrain {

enum class DType { kBool, kU8, kI8, kI16, kU16, kF16, kBF16, kI32, kU32, kF32, kI64, kU64, kF64 };

const char* dtype_name(DType dtype);  // as the header spells it: "F32"
size_t dtype_size(DType dtype);       // bytes per element

struct SafeTensor {
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;  // [] for a scalar
  std::vector<uint8_t> data;   // numel * dtype_size bytes, row-major, little-endian
};

struct Safetensors {
  std::map<std::string, std::string> metadata;
  std::map<std::string, SafeTensor> tensors;
};

// Reads and checks a whole file; `source` names a stream in errors.
Safetensors read_safetensors(const std::string& path);
Safetensors read_safetensors(std::istream& in, const std::string& source);

// Names and metadata must be UTF-8 text (JSON strings). Writes through an AtomicFile: the old file
// survives any failure. Tensors are laid out largest dtype first, then by name, so each is aligned
// to its element size (as Python's safetensors does); the same content always gives the same bytes.
void write_safetensors(const std::string& path, const Safetensors& file);

}  // namespace xtrain
