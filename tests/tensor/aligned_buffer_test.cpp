#include "lib/tensor/aligned_buffer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>

namespace xtrain {
namespace {

// Resident bytes of this process, from /proc/self/statm (pages).
int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

TEST(AlignedBuffer, IsAlignedAndZeroed) {
  AlignedBuffer buffer(1000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) % AlignedBuffer::kAlignment, 0u);
  EXPECT_TRUE(std::all_of(buffer.data(), buffer.data() + 1000, [](float v) { return v == 0.0f; }));
}

// Released pages stop counting as resident memory and read as zeros; the buffer stays usable.
TEST(AlignedBuffer, ReleasedPagesCostNoMemoryAndReadAsZeros) {
  constexpr size_t kFloats = size_t{16} << 20;  // 64 MB
  AlignedBuffer buffer = AlignedBuffer::uninitialized(kFloats);
  std::fill_n(buffer.data(), kFloats, 1.0f);
  const int64_t touched = resident_bytes();
  buffer.release_pages();
  EXPECT_LT(resident_bytes(), touched - int64_t{48} * 1000 * 1000);
  EXPECT_EQ(buffer.data()[kFloats / 2], 0.0f);
  buffer.data()[kFloats / 2] = 2.0f;
  EXPECT_EQ(buffer.data()[kFloats / 2], 2.0f);
  EXPECT_EQ(buffer.size(), kFloats);
}

}  // namespace
}  // namespace xtrain
