// Time to accuracy, as DAWNBench and MLPerf measure a run: each evaluation that raised the run's
// best top-1, with the run's wall time when it ended, summed over every resume. Checkpoints keep
// the list in their __metadata__ (as JSON, [[epoch, top1, seconds], ...]), so a resumed run still
// knows when each accuracy was first reached.
// Not here: the clock and when a milestone is reached (lib/train), the file (checkpoint.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace xtrain {

struct Top1Milestone {
  int64_t epoch = 0;
  double top1 = 0.0;         // percent
  double run_seconds = 0.0;  // the run's wall time at the end of that evaluation
};

// The first milestone at or above `top1` percent: when the run first reached it.
std::optional<Top1Milestone> first_reaching(const std::vector<Top1Milestone>& milestones,
                                            double top1);

std::string milestones_json(const std::vector<Top1Milestone>& milestones);
// Throws xtrain::Error naming `path` unless `text` is such a list: epochs and seconds that never
// go back, accuracies that only rise, each a percentage.
std::vector<Top1Milestone> parse_milestones(const std::string& text, const std::string& path);

}  // namespace xtrain
