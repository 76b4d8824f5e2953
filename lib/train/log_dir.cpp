#include "lib/train/log_dir.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <regex>

#include "lib/base/check.h"
#include "lib/base/escape_bytes.h"
#include "lib/io/atomic_file.h"

namespace xtrain {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLast = "checkpoint-last.safetensors";
constexpr const char* kBest = "model_best.safetensors";
constexpr const char* kSummary = "summary.json";

std::string epoch_file(int64_t epoch) {
  return fmt::format("checkpoint-epoch-{}.safetensors", epoch);
}

// Whether LogDir writes a file of this name (through a temporary file).
bool is_written_here(const std::string& name) {
  static const std::regex kEpochFile(R"(checkpoint-epoch-[0-9]+\.safetensors)");
  return name == kLast || name == kBest || name == kSummary || std::regex_match(name, kEpochFile);
}

// A writer killed mid-write (a checkpoint-sized file, often) leaves its temporary file; those of
// the files written here, and only those, are removed. Only for the holder of the folder's lock,
// which no other writer of them outlives. Returns how many.
int remove_stale_temporary_files(const std::string& dir) {
  int removed = 0;
  std::error_code error, not_removed;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    const std::string target = temporary_target(it->path().filename().string());
    if (target.empty() || !is_written_here(target)) continue;
    if (it->symlink_status().type() == fs::file_type::regular && fs::remove(*it, not_removed)) {
      ++removed;
    }
  }
  return removed;
}

// Points `link` at `target` atomically: a new hard link beside it, renamed over the old one.
void replace_with_link(const fs::path& target, const fs::path& link) {
  const fs::path temporary = temporary_path_for(link.string());
  std::error_code error;
  fs::create_hard_link(target, temporary, error);
  XTRAIN_CHECK(!error, "cannot link {} to {}: {}", temporary.string(), target.string(),
               error.message());
  fs::rename(temporary, link, error);
  if (error) {
    std::error_code ignored;
    fs::remove(temporary, ignored);  // a stale name would keep target's bytes after its rotation
  }
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

std::vector<Scalar> tensorboard_scalars(const TrainRecord& r) {
  return {{"Loss/train", static_cast<float>(r.loss)},
          {"examples/sec", static_cast<float>(r.rate)},
          {"average_examples/sec", static_cast<float>(r.global_rate)},
          {"LearningRate", static_cast<float>(r.lr)},
          {"DataWait/share", static_cast<float>(r.data_wait)}};
}

std::vector<Scalar> tensorboard_scalars(const EvalRecord& r) {
  const std::string suffix = r.ema ? "_ema" : "";
  return {{"Accuracy/test" + suffix, static_cast<float>(r.top1)},
          {"Accuracy/test_top5" + suffix, static_cast<float>(r.top5)}};
}

LogDir::LogDir(std::string dir, int keep_checkpoints)
    : dir_(make_dir(dir)),
      lock_(dir_, "--logdir"),
      keep_checkpoints_(keep_checkpoints),
      metrics_(path("metrics.jsonl")),
      events_(dir_, wall_time_now()) {
  XTRAIN_CHECK(keep_checkpoints >= 1, "--keep_checkpoints must be >= 1, got {}", keep_checkpoints);
  const int removed = remove_stale_temporary_files(dir_);
  if (removed > 0) {
    spdlog::info("Note: removed {} temporary file{} of killed writes from --logdir {}", removed,
                 removed > 1 ? "s" : "", escape_bytes(dir_));
  }
}

std::string LogDir::path(const std::string& name) const { return (fs::path(dir_) / name).string(); }

void LogDir::append(const TrainRecord& record) {
  std::lock_guard<std::mutex> lock(mutex_);
  metrics_.append(record);
  if (record.core == 0) {
    events_.add_scalars(record.global_step, tensorboard_scalars(record), wall_time_now());
  }
}

void LogDir::append(const EvalRecord& record) {
  std::lock_guard<std::mutex> lock(mutex_);
  metrics_.append(record);
  events_.add_scalars(record.epoch, tensorboard_scalars(record), wall_time_now());
}

void LogDir::save_epoch(Replica& replica, const std::vector<StateBuffer>& optimizer,
                        const CheckpointInfo& info, bool improved, const AveragedModelState* ema) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string file = path(epoch_file(info.epoch));
  save_checkpoint(file, replica, optimizer, info, ema);
  replace_with_link(file, path(kLast));
  if (improved) save_model(path(kBest), replica, info);
  std::error_code ignored;  // an old file already gone is fine
  fs::remove(path(epoch_file(info.epoch - keep_checkpoints_)), ignored);
}

void LogDir::save_last(Replica& replica, const std::vector<StateBuffer>& optimizer,
                       const CheckpointInfo& info, const AveragedModelState* ema) {
  std::lock_guard<std::mutex> lock(mutex_);
  save_checkpoint(path(kLast), replica, optimizer, info,
                  ema);  // atomic: replaces the link, not its target
}

void LogDir::write_summary(const RunSummary& summary) {
  std::lock_guard<std::mutex> lock(mutex_);
  xtrain::write_summary(path(kSummary), summary);
}

std::string LogDir::latest_checkpoint(const std::string& dir) {
  const fs::path last = fs::path(dir) / kLast;
  std::error_code error;
  return fs::exists(last, error) ? last.string() : "";
}

}  // namespace xtrain
