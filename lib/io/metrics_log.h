// Metrics for scripts: metrics.jsonl, one JSON object per training log line and per evaluation,
// and summary.json at the end of a run. Records carry "kind" ("train", "eval", or "eval_ema" for
// an evaluation of the model's average under --model_ema) so that
// `jq 'select(.kind == "eval") | .top1'` needs no guessing. A NaN or infinite loss is written
// as null (JSON has no NaN).
// Not here: when to log or the console lines (lib/train/log_lines.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/io/append_file.h"
#include "lib/io/top1_milestones.h"

namespace xtrain {

// What a training log line says ("| Training Device=xla:0/0 Epoch=1 Step=20 Loss=...").
struct TrainRecord {
  int epoch = 0;
  int64_t step = 0;
  int core = 0;
  double loss = 0, lr = 0;
  double rate = 0, global_rate = 0;  // images per second: this core recently, the run so far
  std::string time;                  // the console line's wall-clock time, "HH:MM:SS"
  int64_t global_step = 0;           // optimizer steps over the whole run, this one included
  double data_wait = 0;  // the share of the time since the previous line spent waiting for data
};

// One evaluation of the val set; accuracies in percent.
struct EvalRecord {
  int epoch = 0;
  double top1 = 0, top5 = 0;
  int64_t skipped_images = 0;  // unreadable images left out
  int64_t nonfinite = 0;       // samples whose outputs had a NaN or an infinity (counted wrong)
  int64_t samples = 0;         // samples scored: the accuracies' denominator
  bool ema = false;            // of the model's average (--model_ema): kind "eval_ema"
  double run_seconds = 0;      // the run's wall time at its end, over every resume
};

struct RunSummary {
  double max_top1 = 0, max_top5 = 0;      // best over the run's evaluations, percent
  double final_top1 = 0, final_top5 = 0;  // the last evaluation
  int epochs = 0;
  double total_seconds = 0;
  double images_per_second = 0;  // training images over training time, all cores
  std::string flags = "{}";      // the run's flags, a JSON object (embedded as an object)
  double run_seconds = 0;        // the run's wall time over every resume (total_seconds: this one)
  // Time to accuracy: for each target top-1, the first milestone reaching it, or none.
  std::vector<double> top1_targets;
  std::vector<Top1Milestone> top1_milestones;
};

// Appends to metrics.jsonl, creating it: a resumed run continues the same file. The file only
// ever holds whole lines (see append_file.h). A partial last line left by a crash is removed,
// with a warning, when the file is opened.
class MetricsLog {
 public:
  explicit MetricsLog(std::string path);

  void append(const TrainRecord& r);
  void append(const EvalRecord& r);

 private:
  void remove_partial_last_line();
  void append_line(const std::string& line);

  AppendFile file_;
};

// Writes summary.json atomically (see atomic_file.h); throws if flags is not a JSON object.
void write_summary(const std::string& path, const RunSummary& summary);

}  // namespace xtrain
