#include "lib/graph/arena_planner.h"

#include <algorithm>
#include <numeric>

#include "lib/base/check.h"
#include "lib/tensor/aligned_buffer.h"

namespace xtrain {
namespace {

bool live_together(const ArenaBuffer& a, const ArenaBuffer& b) {
  return a.first <= b.last && b.first <= a.last;
}

}  // namespace

int ArenaPlanner::add(size_t floats, int first, int last) {
  XTRAIN_CHECK(first <= last, "arena buffer lives from tick {} to tick {}", first, last);
  buffers_.push_back({floats, first, last, 0});
  return static_cast<int>(buffers_.size()) - 1;
}

void ArenaPlanner::extend(int id, int first, int last) {
  XTRAIN_CHECK(first <= last, "arena buffer lives from tick {} to tick {}", first, last);
  ArenaBuffer& b = buffers_.at(id);
  b.first = std::min(b.first, first);
  b.last = std::max(b.last, last);
}

size_t ArenaPlanner::place() {
  std::vector<int> order(buffers_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return buffers_[a].floats > buffers_[b].floats; });
  std::vector<int> placed;
  size_t arena = 0;
  for (int id : order) {
    ArenaBuffer& buffer = buffers_[id];
    // The placed buffers live at the same time as this one, by offset; take the first gap.
    std::vector<const ArenaBuffer*> rivals;
    for (int other : placed) {
      if (live_together(buffer, buffers_[other])) rivals.push_back(&buffers_[other]);
    }
    std::sort(rivals.begin(), rivals.end(),
              [](const ArenaBuffer* a, const ArenaBuffer* b) { return a->offset < b->offset; });
    const size_t floats = AlignedBuffer::round_up(buffer.floats);
    size_t offset = 0;
    for (const ArenaBuffer* rival : rivals) {
      if (offset + floats <= rival->offset) break;
      offset = std::max(offset, rival->offset + AlignedBuffer::round_up(rival->floats));
    }
    buffer.offset = offset;
    arena = std::max(arena, offset + floats);
    placed.push_back(id);
  }
  return arena;
}

ArenaPlanner::Peak ArenaPlanner::live_peak() const {
  int ticks = 0;
  for (const ArenaBuffer& b : buffers_) ticks = std::max(ticks, b.last + 1);
  // Each buffer's floats join at its first tick and leave after its last.
  std::vector<int64_t> change(ticks + 1, 0);
  for (const ArenaBuffer& b : buffers_) {
    const auto floats = static_cast<int64_t>(AlignedBuffer::round_up(b.floats));
    change[b.first] += floats;
    change[b.last + 1] -= floats;
  }
  Peak peak;
  int64_t live = 0;
  for (int tick = 0; tick < ticks; ++tick) {
    live += change[tick];
    if (static_cast<size_t>(live) > peak.floats) peak = {static_cast<size_t>(live), tick};
  }
  return peak;
}

}  // namespace xtrain
