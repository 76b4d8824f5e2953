#include "lib/io/metrics_log.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "lib/base/check.h"
#include "lib/base/escape_bytes.h"
#include "lib/io/atomic_file.h"

namespace xtrain {

using nlohmann::ordered_json;

namespace {

// The length of the file's whole lines: up to and including its last '\n', 0 if it has none;
// -1 if it cannot be read. Reads backwards from `size`, a block at a time.
off_t whole_lines_length(int fd, off_t size) {
  char block[4096];
  for (off_t end = size; end > 0;) {
    const off_t begin = std::max<off_t>(0, end - static_cast<off_t>(sizeof block));
    const ssize_t n = ::pread(fd, block, static_cast<size_t>(end - begin), begin);
    if (n != end - begin) return -1;
    const void* newline = ::memrchr(block, '\n', static_cast<size_t>(n));
    if (newline != nullptr) return begin + (static_cast<const char*>(newline) - block) + 1;
    end = begin;
  }
  return 0;
}

}  // namespace

MetricsLog::MetricsLog(std::string path) : file_(std::move(path), AppendFile::Mode::kOpenOrCreate) {
  remove_partial_last_line();
}

void MetricsLog::remove_partial_last_line() {
  struct stat file;
  XTRAIN_CHECK(::fstat(file_.fd(), &file) == 0, "cannot read {}: {}", file_.path(),
               std::strerror(errno));
  if (!S_ISREG(file.st_mode)) return;  // a device or a pipe has no last line to repair
  const off_t whole = whole_lines_length(file_.fd(), file.st_size);
  if (whole == file.st_size) return;
  XTRAIN_CHECK(whole >= 0 && ::ftruncate(file_.fd(), whole) == 0,
               "cannot remove the partial last line of {}: {}", file_.path(), std::strerror(errno));
  spdlog::warn("warning: {} ended in a partial line ({} bytes, cut off by a crash?); removed it",
               escape_bytes(file_.path()), file.st_size - whole);
}

void MetricsLog::append(const TrainRecord& r) {
  append_line(ordered_json{{"kind", "train"},
                           {"epoch", r.epoch},
                           {"step", r.step},
                           {"core", r.core},
                           {"loss", r.loss},
                           {"lr", r.lr},
                           {"rate", r.rate},
                           {"global_rate", r.global_rate},
                           {"time", r.time},
                           {"global_step", r.global_step},
                           {"data_wait", r.data_wait}}
                  .dump());
}

void MetricsLog::append(const EvalRecord& r) {
  append_line(ordered_json{{"kind", r.ema ? "eval_ema" : "eval"},
                           {"epoch", r.epoch},
                           {"top1", r.top1},
                           {"top5", r.top5},
                           {"skipped_images", r.skipped_images},
                           {"nonfinite", r.nonfinite},
                           {"samples", r.samples},
                           {"run_seconds", r.run_seconds}}
                  .dump());
}

void MetricsLog::append_line(const std::string& line) { file_.append(line + '\n'); }

namespace {

// [{"top1": target, "epoch": E, "run_seconds": S}, ...]: when each target was first reached, or
// nulls.
ordered_json time_to_top1(const RunSummary& s) {
  ordered_json list = ordered_json::array();
  for (double target : s.top1_targets) {
    const std::optional<Top1Milestone> reached = first_reaching(s.top1_milestones, target);
    list.push_back(
        {{"top1", target},
         {"epoch", reached ? ordered_json(reached->epoch) : ordered_json()},
         {"run_seconds", reached ? ordered_json(reached->run_seconds) : ordered_json()}});
  }
  return list;
}

}  // namespace

void write_summary(const std::string& path, const RunSummary& s) {
  ordered_json flags;
  try {
    flags = ordered_json::parse(s.flags);
  } catch (const ordered_json::exception& e) {
    throw_error(__FILE__, __LINE__,
                fmt::format("cannot write {}: the flags are not JSON: {}", path, e.what()));
  }
  XTRAIN_CHECK(flags.is_object(), "cannot write {}: the flags are not a JSON object", path);
  const ordered_json summary{{"max_top1", s.max_top1},
                             {"max_top5", s.max_top5},
                             {"final_top1", s.final_top1},
                             {"final_top5", s.final_top5},
                             {"epochs", s.epochs},
                             {"total_seconds", s.total_seconds},
                             {"images_per_second", s.images_per_second},
                             {"run_seconds", s.run_seconds},
                             {"time_to_top1", time_to_top1(s)},
                             {"flags", flags}};
  AtomicFile out(path);
  out.write(summary.dump(2) + "\n");
  out.commit();
}

}  // namespace xtrain
