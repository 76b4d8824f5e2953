// ArenaPlanner: packs buffers with known lifetimes into one arena. A buffer is live over an
// inclusive range of ticks [first, last]; two buffers whose ranges intersect never share a
// byte, others may. Placement is greedy (largest first, at the lowest offset that fits) and
// depends only on the buffers added, so a plan's layout is the same run after run.
// Not here: what the ticks are or what a buffer holds (plan_phases.h).
#pragma once

#include <cstddef>
#include <vector>

namespace xtrain {

struct ArenaBuffer {
  size_t floats;
  int first, last;  // live ticks, inclusive
  size_t offset;    // in floats from the arena's start, a multiple of 16 (64 bytes); set by place()
};

class ArenaPlanner {
 public:
  // Adds a buffer and returns its id (0, 1, 2, ...).
  int add(size_t floats, int first, int last);
  // Widens buffer id's lifetime to cover [first, last] too: one buffer serving as two in turn.
  void extend(int id, int first, int last);
  // Assigns every offset; returns the arena's size in floats.
  size_t place();

  // The most floats live at one tick, the earliest such tick: what any placement needs at least
  // (place() comes close), found without placing.
  struct Peak {
    size_t floats = 0;
    int tick = 0;
  };
  Peak live_peak() const;

  const ArenaBuffer& buffer(int id) const { return buffers_[id]; }
  const std::vector<ArenaBuffer>& buffers() const { return buffers_; }

 private:
  std::vector<ArenaBuffer> buffers_;
};

}  // namespace xtrain
