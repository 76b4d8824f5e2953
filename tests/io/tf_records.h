// The records of a TFRecord file for tests, each checked against its two masked CRCs as
// TensorBoard's reader checks them; a partial record at the end is left out, as TensorBoard
// leaves it until the rest arrives.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lib/io/crc32c.h"

namespace xtrain::testing {

template <typename T>
T read_little_endian(const std::string& s, size_t at) {
  T value;
  std::memcpy(&value, s.data() + at, sizeof(T));
  return value;
}

inline std::vector<std::string> read_tf_records(const std::string& file) {
  std::vector<std::string> records;
  for (size_t at = 0; at + 12 <= file.size();) {
    const auto length = read_little_endian<uint64_t>(file, at);
    EXPECT_EQ(read_little_endian<uint32_t>(file, at + 8), masked_crc32c(file.data() + at, 8));
    if (at + 12 + length + 4 > file.size()) break;
    const std::string data = file.substr(at + 12, length);
    EXPECT_EQ(read_little_endian<uint32_t>(file, at + 12 + length),
              masked_crc32c(data.data(), data.size()));
    records.push_back(data);
    at += 12 + length + 4;
  }
  return records;
}

}  // namespace xtrain::testing
