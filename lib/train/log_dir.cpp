#include "lib/train/log_dir.h"

#include <fmt/format.h>

#include <filesystem>

#include "lib/base/check.h"

namespace xtrain {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLast = "checkpoint-last.safetensors";
constexpr const char* kBest = "model_best.safetensors";

std::string epoch_file(int64_t epoch) {
  return fmt::format("checkpoint-epoch-{}.safetensors", epoch);
}

// Points `link` at `target` atomically: a new hard link beside it, renamed over the old one.
void replace_with_link(const fs::path& target, const fs::path& link) {
  const fs::path temporary = link.string() + ".tmp-link";
  std::error_code error;
  fs::remove(temporary, error);
  fs::create_hard_link(target, temporary, error);
  XTRAIN_CHECK(!error, "cannot link {} to {}: {}", temporary.string(), target.string(),
               error.message());
  fs::rename(temporary, link, error);
  XTRAIN_CHECK(!error, "cannot rename {} to {}: {}", temporary.string(), link.string(),
               error.message());
}

std::string make_dir(const std::string& dir) {
  std::error_code error;
  fs::create_directories(dir, error);
  XTRAIN_CHECK(!error && fs::is_directory(dir), "--logdir: cannot create {}: {}", dir,
               error ? error.message() : "not a folder");
  return dir;
}

}  // namespace

LogDir::LogDir(std::string dir, int keep_checkpoints)
    : dir_(make_dir(dir)), keep_checkpoints_(keep_checkpoints), metrics_(path("metrics.jsonl")) {
  XTRAIN_CHECK(keep_checkpoints >= 1, "--keep_checkpoints must be >= 1, got {}", keep_checkpoints);
}

std::string LogDir::path(const std::string& name) const { return (fs::path(dir_) / name).string(); }

void LogDir::append(const TrainRecord& record) {
  std::lock_guard<std::mutex> lock(mutex_);
  metrics_.append(record);
}

void LogDir::append(const EvalRecord& record) {
  std::lock_guard<std::mutex> lock(mutex_);
  metrics_.append(record);
}

void LogDir::save_epoch(Replica& replica, const CheckpointInfo& info, bool improved) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string file = path(epoch_file(info.epoch));
  save_checkpoint(file, replica, info);
  replace_with_link(file, path(kLast));
  if (improved) replace_with_link(file, path(kBest));
  std::error_code ignored;  // an old file already gone is fine
  fs::remove(path(epoch_file(info.epoch - keep_checkpoints_)), ignored);
}

void LogDir::save_last(Replica& replica, const CheckpointInfo& info) {
  std::lock_guard<std::mutex> lock(mutex_);
  save_checkpoint(path(kLast), replica, info);  // atomic: replaces the link, not its target
}

void LogDir::write_summary(const RunSummary& summary) {
  std::lock_guard<std::mutex> lock(mutex_);
  xtrain::write_summary(path("summary.json"), summary);
}

std::string LogDir::latest_checkpoint(const std::string& dir) {
  const fs::path last = fs::path(dir) / kLast;
  XTRAIN_CHECK(fs::is_regular_file(last), "--resume=auto: no {} in --logdir {}", kLast, dir);
  return last.string();
}

}  // namespace xtrain
