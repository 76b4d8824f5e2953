#include "lib/io/safetensors.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "lib/base/check.h"
#include "tests/io/io_test_util.h"
#include "tests/test_util.h"

namespace xtrain {
namespace {

using testing::raw;
using testing::safetensors_bytes;

SafeTensor tensor(DType dtype, std::vector<int64_t> shape, std::string bytes) {
  return {dtype, std::move(shape), std::vector<uint8_t>(bytes.begin(), bytes.end())};
}

Safetensors parse(const std::string& bytes) {
  std::istringstream in(bytes);
  return read_safetensors(in, "test.safetensors");
}

// The message of the xtrain::Error that parsing `bytes` throws ("" if it loads).
std::string rejection(const std::string& bytes) {
  return testing::error_of([&] { parse(bytes); });
}

TEST(Safetensors, RoundTripKeepsEveryByte) {
  testing::TempDir dir;
  Safetensors file;
  file.metadata = {{"format", "pt"}, {"epoch", "3"}};
  file.tensors["conv.weight"] =
      tensor(DType::kF32, {2, 3}, raw<float>({1, -2, 3.5f, 0, 1e-30f, 7}));
  file.tensors["bn.num_batches_tracked"] = tensor(DType::kI64, {}, raw<int64_t>({1234567890123}));
  file.tensors["empty"] = tensor(DType::kU8, {0, 4}, "");
  file.tensors["a.odd"] = tensor(DType::kU8, {3}, "xyz");
  write_safetensors(dir.file("a.safetensors"), file);

  const Safetensors back = read_safetensors(dir.file("a.safetensors"));
  EXPECT_EQ(back.metadata, file.metadata);
  ASSERT_EQ(back.tensors.size(), file.tensors.size());
  for (const auto& [name, t] : file.tensors) {
    const SafeTensor& b = back.tensors.at(name);
    EXPECT_EQ(b.dtype, t.dtype) << name;
    EXPECT_EQ(b.shape, t.shape) << name;
    EXPECT_EQ(b.data, t.data) << name;
  }
  write_safetensors(dir.file("b.safetensors"), back);
  EXPECT_EQ(testing::read_bytes(dir.file("a.safetensors")),
            testing::read_bytes(dir.file("b.safetensors")));
}

// What Python's safetensors does too: the data region starts 8-byte aligned and larger dtypes
// come first, so every tensor is aligned to its element size after the odd-sized U8 one.
TEST(Safetensors, WritesEveryTensorAligned) {
  testing::TempDir dir;
  Safetensors file;
  file.tensors["a"] = tensor(DType::kU8, {3}, "abc");
  file.tensors["b"] = tensor(DType::kF32, {1}, raw<float>({1}));
  file.tensors["c"] = tensor(DType::kI64, {1}, raw<int64_t>({2}));
  write_safetensors(dir.file("x.safetensors"), file);

  const std::string bytes = testing::read_bytes(dir.file("x.safetensors"));
  uint64_t header_size = 0;
  std::memcpy(&header_size, bytes.data(), 8);
  EXPECT_EQ(header_size % 8, 0u);
  const auto header = nlohmann::json::parse(bytes.substr(8, header_size));
  EXPECT_EQ(header["c"]["data_offsets"], nlohmann::json({0, 8}));
  EXPECT_EQ(header["b"]["data_offsets"], nlohmann::json({8, 12}));
  EXPECT_EQ(header["a"]["data_offsets"], nlohmann::json({12, 15}));
  EXPECT_FALSE(header.contains("__metadata__"));  // none given, none written
}

TEST(Safetensors, ReadsAFileWrittenByHand) {
  const std::string header = R"({"__metadata__":{"format":"pt"},)"
                             R"("w":{"dtype":"F32","shape":[2,1],"data_offsets":[8,16]},)"
                             R"("n":{"dtype":"I64","shape":[],"data_offsets":[0,8]}}   )";
  const std::string w_bytes = raw<float>({0.5f, -4});
  const Safetensors file = parse(safetensors_bytes(header, raw<int64_t>({42}) + w_bytes));
  EXPECT_EQ(file.metadata.at("format"), "pt");
  const SafeTensor& w = file.tensors.at("w");
  EXPECT_EQ(w.dtype, DType::kF32);
  EXPECT_EQ(w.shape, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(w.data, std::vector<uint8_t>(w_bytes.begin(), w_bytes.end()));
  const SafeTensor& n = file.tensors.at("n");
  EXPECT_EQ(n.dtype, DType::kI64);
  EXPECT_TRUE(n.shape.empty());
  int64_t value = 0;
  std::memcpy(&value, n.data.data(), 8);
  EXPECT_EQ(value, 42);
}

TEST(Safetensors, RejectsAMissingFileOrAFolder) {
  EXPECT_THROW(read_safetensors("/nonexistent/x.safetensors"), Error);
  testing::TempDir dir;
  EXPECT_THROW(read_safetensors(dir.file("")), Error);
}

TEST(Safetensors, RefusesToWriteWhatCannotBeReadBack) {
  testing::TempDir dir;
  Safetensors file;
  file.tensors["w"] = tensor(DType::kF32, {3}, raw<float>({1, 2}));  // 8 bytes, not 12
  EXPECT_THROW(write_safetensors(dir.file("a.safetensors"), file), Error);
  file.tensors.clear();
  file.metadata["rng_state"] = "\xff\xfe";  // JSON strings are UTF-8
  EXPECT_THROW(write_safetensors(dir.file("a.safetensors"), file), Error);
  file.metadata.clear();
  file.tensors["__metadata__"] = tensor(DType::kU8, {1}, "x");
  EXPECT_THROW(write_safetensors(dir.file("a.safetensors"), file), Error);
  EXPECT_EQ(dir.names(), std::vector<std::string>{});
}

struct BadFile {
  const char* what;
  std::string bytes;
  const char* message;  // a part of the error
};

std::string one_tensor(const std::string& entry, size_t data_bytes) {
  return safetensors_bytes(R"({"t":)" + entry + "}", std::string(data_bytes, '\x01'));
}

TEST(Safetensors, RejectsEachKindOfBadFile) {
  const std::string good = one_tensor(R"({"dtype":"F32","shape":[2],"data_offsets":[0,8]})", 8);
  ASSERT_EQ(rejection(good), "");
  const std::string huge_length = std::string(8, '\xff') + "{}";
  const BadFile kBad[] = {
      {"empty", "", "truncated"},
      {"shorter than the length", std::string("\x10\0\0", 3), "truncated"},
      {"truncated data", good.substr(0, good.size() - 1), "needs more than the 7 bytes"},
      {"header length past the end", safetensors_bytes("{}", "").replace(0, 1, "\x40"),
       "runs past the end"},
      {"header length 2^64 - 1", huge_length, "runs past the end"},
      {"bad JSON", safetensors_bytes(R"({"t": {"dtype": )", ""), "not valid JSON"},
      {"JSON not an object", safetensors_bytes("[1, 2]", ""), "not a JSON object"},
      {"a key twice",
       safetensors_bytes(R"({"t":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                         R"("t":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})",
                         "ab"),
       "names t twice"},
      {"metadata not strings", safetensors_bytes(R"({"__metadata__":{"epoch":3}})", ""),
       "__metadata__ epoch is not a string"},
      {"entry not an object", one_tensor("[]", 0), "not a JSON object"},
      {"no dtype", one_tensor(R"({"shape":[2],"data_offsets":[0,8]})", 8), "has no dtype"},
      {"no shape", one_tensor(R"({"dtype":"F32","data_offsets":[0,8]})", 8), "has no shape"},
      {"no offsets", one_tensor(R"({"dtype":"F32","shape":[2]})", 8), "has no data_offsets"},
      {"unknown dtype", one_tensor(R"({"dtype":"F99","shape":[2],"data_offsets":[0,8]})", 8),
       "unknown dtype \"F99\""},
      {"dtype a number", one_tensor(R"({"dtype":4,"shape":[2],"data_offsets":[0,8]})", 8),
       "dtype is not a string"},
      {"shape a string", one_tensor(R"({"dtype":"F32","shape":"2","data_offsets":[0,8]})", 8),
       "shape is not an array"},
      {"negative dimension", one_tensor(R"({"dtype":"F32","shape":[-2],"data_offsets":[0,8]})", 8),
       "not a non-negative integer"},
      {"fractional dimension",
       one_tensor(R"({"dtype":"F32","shape":[2.5],"data_offsets":[0,8]})", 8),
       "not a non-negative integer"},
      {"dimension past int64",
       one_tensor(R"({"dtype":"F32","shape":[18446744073709551615],"data_offsets":[0,8]})", 8),
       "not a non-negative integer"},
      {"shape overflowing 64 bits",
       one_tensor(R"({"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]})", 8),
       "needs more than the 8 bytes of the data region"},
      {"shape larger than the file",
       one_tensor(R"({"dtype":"F32","shape":[1000000,1000000],"data_offsets":[0,8]})", 8),
       "needs more than the 8 bytes of the data region"},
      {"shape and offsets disagree",
       one_tensor(R"({"dtype":"F32","shape":[3],"data_offsets":[0,8]})", 64),
       "F32 [3] takes 12 bytes but data_offsets [0, 8] span 8"},
      {"wrong dtype for the span",
       one_tensor(R"({"dtype":"I64","shape":[2],"data_offsets":[0,8]})", 64),
       "I64 [2] takes 16 bytes"},
      {"offsets reversed", one_tensor(R"({"dtype":"U8","shape":[0],"data_offsets":[8,0]})", 8),
       "outside the data region"},
      {"offsets past the data",
       one_tensor(R"({"dtype":"F32","shape":[2],"data_offsets":[4,12]})", 8),
       "outside the data region"},
      {"offsets not a pair", one_tensor(R"({"dtype":"F32","shape":[2],"data_offsets":[0,8,9]})", 8),
       "data_offsets is not an array [begin, end]"},
      {"offsets negative", one_tensor(R"({"dtype":"U8","shape":[0],"data_offsets":[-1,-1]})", 8),
       "not a non-negative integer"},
      {"overlapping tensors",
       safetensors_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                         R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                         std::string(12, '\0')),
       "tensors a and b overlap"},
      {"a gap between tensors",
       safetensors_bytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                         R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
                         std::string(12, '\0')),
       "data bytes [4, 8) belong to no tensor"},
      {"bytes after the last tensor", good + "junk", "data bytes [8, 12) belong to no tensor"},
  };
  for (const BadFile& bad : kBad) {
    const std::string message = rejection(bad.bytes);
    EXPECT_NE(message.find(bad.message), std::string::npos)
        << bad.what << ": got \"" << message << "\", expected it to contain \"" << bad.message
        << "\"";
    EXPECT_EQ(message.rfind("test.safetensors: ", 0), 0u) << bad.what << ": " << message;
  }
}

}  // namespace
}  // namespace xtrain
