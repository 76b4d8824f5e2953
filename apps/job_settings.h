// JobSettings: the flags every process of a job must be given alike, compared once at start. A
// job whose processes disagree stops with one line naming the flag and two ranks, instead of
// training on mixed settings without a word or meeting, in its first collective, gradients of
// another length (a different --model or --num_steps).
// Settings of one machine may differ: the loader's threads and queues, --profile (written by
// rank 0 alone) and --num_cores (check_same_cores compares the cores the memory plan leaves).
// Not here: parsing the flags (train_flags.h), sending texts between processes (ProcessGroup).
#pragma once

#include <string>
#include <vector>

#include "apps/train_flags.h"
#include "lib/parallel/process_group.h"

namespace xtrain {

struct JobSetting {
  std::string flag;   // as users write it: "--lr"
  std::string value;  // as parsed, so "--lr=0.10" and "--lr 0.1" agree
};
using JobSettings = std::vector<JobSetting>;

// The settings of the parsed flags, in --help's order.
JobSettings job_settings(const TrainFlags& flags);

// The settings as one text, for sending to the other processes, and back. Paths may hold any
// byte but NUL, which separates the fields.
std::string settings_text(const JobSettings& settings);
JobSettings settings_from_text(const std::string& text);

// Why process `rank`, given `mine`, cannot run with rank 0, given `first`: the first flag they
// disagree on, with both values; "" when they agree.
std::string settings_disagreement(const JobSettings& first, const JobSettings& mine, int rank);

// Compares every process's settings with rank 0's. Throws the same Error in every process when
// some process disagrees (the lowest such rank is named), so the job can say it once. Every
// process calls it.
void check_job_settings(const TrainFlags& flags, ProcessGroup& processes);

}  // namespace xtrain
