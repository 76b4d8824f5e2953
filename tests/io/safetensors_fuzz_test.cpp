// Random mutations of a small valid file: whatever the bytes, reading either succeeds or throws
// xtrain::Error (a crash, a hang, another exception or a huge allocation fails the test run).
#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <cstring>
#include <random>
#include <sstream>

#include "lib/base/check.h"
#include "lib/io/safetensors.h"
#include "tests/io/io_test_util.h"

namespace xtrain {
namespace {

std::string valid_file() {
  testing::TempDir dir;
  Safetensors file;
  file.metadata = {{"format_version", "1"}, {"model", "tiny"}};
  file.tensors["conv1.weight"] = {DType::kF32, {2, 1, 3, 3}, std::vector<uint8_t>(72, 1)};
  file.tensors["bn1.num_batches_tracked"] = {DType::kI64, {}, std::vector<uint8_t>(8, 2)};
  file.tensors["bn1.weight"] = {DType::kF32, {2}, std::vector<uint8_t>(8, 3)};
  file.tensors["fc.bias"] = {DType::kF32, {0}, {}};
  write_safetensors(dir.file("valid.safetensors"), file);
  return testing::read_bytes(dir.file("valid.safetensors"));
}

// Replaces a run of digits in the header by another number, often an extreme one: the mutations
// that reach the shape and offset checks rather than the JSON parser.
void mutate_number(std::string& bytes, std::mt19937_64& rng) {
  if (bytes.size() <= 8) return;
  uint64_t header_size = 0;
  std::memcpy(&header_size, bytes.data(), 8);
  const size_t header_end = 8 + std::min<uint64_t>(bytes.size() - 8, header_size);
  const size_t at = 8 + rng() % std::max<size_t>(1, header_end - 8);
  size_t begin = at;
  while (begin < header_end && !std::isdigit(static_cast<unsigned char>(bytes[begin]))) ++begin;
  size_t end = begin;
  while (end < header_end && std::isdigit(static_cast<unsigned char>(bytes[end]))) ++end;
  const std::string kNumbers[] = {"0",
                                  "1",
                                  "7",
                                  "8",
                                  "72",
                                  "4294967296",
                                  "9223372036854775807",
                                  "18446744073709551615",
                                  "99999999999999999999999",
                                  "-1",
                                  "1e3",
                                  std::to_string(rng() % 200)};
  bytes.replace(begin, end - begin, kNumbers[rng() % std::size(kNumbers)]);
}

void mutate(std::string& bytes, std::mt19937_64& rng) {
  const size_t n = std::max<size_t>(1, bytes.size());
  switch (rng() % 7) {
    case 0:  // flip bits
      if (!bytes.empty()) bytes[rng() % n] ^= static_cast<char>(1 << (rng() % 8));
      break;
    case 1:  // a random byte, often a JSON delimiter
      if (!bytes.empty()) bytes[rng() % n] = "{}[]\":,0 \xff"[rng() % 11];
      break;
    case 2:  // truncate
      bytes.resize(rng() % n);
      break;
    case 3:  // delete a range
      bytes.erase(rng() % n, rng() % 16);
      break;
    case 4:  // duplicate a range
      if (!bytes.empty()) {
        const size_t at = rng() % n;
        bytes.insert(rng() % n, bytes.substr(at, rng() % 32));
      }
      break;
    case 5:  // the header length
      if (bytes.size() >= 8) bytes[rng() % 8] = static_cast<char>(rng());
      break;
    case 6:
      mutate_number(bytes, rng);
      break;
  }
}

TEST(SafetensorsFuzz, EveryMutationLoadsOrIsRejectedCleanly) {
  const std::string valid = valid_file();
  std::mt19937_64 rng(20240611);
  int loaded = 0, rejected = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 4000; ++i) {
    std::string bytes = valid;
    const int mutations = 1 + static_cast<int>(rng() % 3);
    for (int m = 0; m < mutations; ++m) mutate(bytes, rng);
    std::istringstream in(bytes);
    try {
      read_safetensors(in, "mutant");
      ++loaded;
    } catch (const Error& e) {
      ++rejected;
      EXPECT_EQ(std::string(e.what()).rfind("mutant: ", 0), 0u) << e.what();
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Both outcomes occur, or the mutations are too tame or too wild to test anything.
  EXPECT_GT(loaded, 100);
  EXPECT_GT(rejected, 1000);
  EXPECT_LT(seconds, 10.0);
  std::printf("%d mutants loaded, %d rejected in %.2f s\n", loaded, rejected, seconds);
}

}  // namespace
}  // namespace xtrain
