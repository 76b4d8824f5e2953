#include "lib/tensor/aligned_buffer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

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

// The VmFlags of the mapping in /proc/self/smaps that holds p ("" when none does).
std::string mapping_flags(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto address = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= address && address < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

// Buffers of 2 MB and more (arenas, parameters, gradients) start on a huge-page boundary and ask
// the kernel for transparent huge pages, as a 4 KB page each costs the kernels TLB misses.
TEST(AlignedBuffer, LargeBuffersAskForHugePages) {
  if (!std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled")) {
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  }
  AlignedBuffer large = AlignedBuffer::uninitialized(size_t{3} << 20);  // 12 MB
  EXPECT_EQ(reinterpret_cast<uintptr_t>(large.data()) % (size_t{2} << 20), 0u);
  EXPECT_NE(mapping_flags(large.data()).find(" hg"), std::string::npos)
      << mapping_flags(large.data());
  AlignedBuffer small(1000);
  EXPECT_EQ(mapping_flags(small.data()).find(" hg"), std::string::npos);
}

}  // namespace
}  // namespace xtrain
