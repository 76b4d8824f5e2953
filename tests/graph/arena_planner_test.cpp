#include "lib/graph/arena_planner.h"

#include <gtest/gtest.h>

#include "lib/tensor/aligned_buffer.h"

namespace xtrain {
namespace {

size_t end_of(const ArenaBuffer& b) { return b.offset + AlignedBuffer::round_up(b.floats); }

TEST(ArenaPlanner, BuffersLiveAtTheSameTimeGetDisjointRanges) {
  ArenaPlanner planner;
  planner.add(100, 0, 2);
  planner.add(50, 1, 3);
  planner.add(70, 2, 2);
  const size_t size = planner.place();
  const auto& b = planner.buffers();
  for (size_t i = 0; i < b.size(); ++i) {
    EXPECT_EQ(b[i].offset % 16, 0u);
    EXPECT_LE(end_of(b[i]), size);
    for (size_t j = i + 1; j < b.size(); ++j) {
      EXPECT_TRUE(end_of(b[i]) <= b[j].offset || end_of(b[j]) <= b[i].offset) << i << " " << j;
    }
  }
}

TEST(ArenaPlanner, BuffersLiveAtDifferentTimesShareMemory) {
  ArenaPlanner planner;
  const int a = planner.add(64, 0, 1);
  const int b = planner.add(64, 2, 3);  // a ping-pong pair and a third that outlives both
  const int c = planner.add(32, 0, 3);
  EXPECT_EQ(planner.place(), 96u);
  EXPECT_EQ(planner.buffer(a).offset, planner.buffer(b).offset);
  EXPECT_NE(planner.buffer(a).offset, planner.buffer(c).offset);
}

// A buffer extended over a second lifetime is live over both: nothing else live then shares it.
TEST(ArenaPlanner, AnExtendedBufferCoversBothLifetimes) {
  ArenaPlanner planner;
  const int a = planner.add(64, 0, 1);
  const int b = planner.add(64, 2, 3);
  planner.extend(a, 3, 4);
  EXPECT_EQ(planner.buffer(a).first, 0);
  EXPECT_EQ(planner.buffer(a).last, 4);
  EXPECT_EQ(planner.place(), 128u);
  EXPECT_NE(planner.buffer(a).offset, planner.buffer(b).offset);
}

}  // namespace
}  // namespace xtrain
