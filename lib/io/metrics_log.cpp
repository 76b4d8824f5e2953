#include "lib/io/metrics_log.h"

#include <fcntl.h>
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

MetricsLog::MetricsLog(std::string path) : path_(std::move(path)) {
  // O_APPEND: each write lands at the end of the file as it is then.
  fd_ = ::open(path_.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  XTRAIN_CHECK(fd_ >= 0, "cannot open {} for appending: {}", path_, std::strerror(errno));
  try {
    remove_partial_last_line();
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

MetricsLog::~MetricsLog() { ::close(fd_); }

void MetricsLog::remove_partial_last_line() {
  struct stat file;
  XTRAIN_CHECK(::fstat(fd_, &file) == 0, "cannot read {}: {}", path_, std::strerror(errno));
  if (!S_ISREG(file.st_mode)) return;  // a device or a pipe has no last line to repair
  const off_t whole = whole_lines_length(fd_, file.st_size);
  if (whole == file.st_size) return;
  XTRAIN_CHECK(whole >= 0 && ::ftruncate(fd_, whole) == 0,
               "cannot remove the partial last line of {}: {}", path_, std::strerror(errno));
  spdlog::warn("warning: {} ended in a partial line ({} bytes, cut off by a crash?); removed it",
               escape_bytes(path_), file.st_size - whole);
}

void MetricsLog::append(const TrainRecord& r) {
  append_line(ordered_json{
      {"kind", "train"},
      {"epoch", r.epoch},
      {"step", r.step},
      {"core", r.core},
      {"loss", r.loss},
      {"lr", r.lr},
      {"rate", r.rate},
      {"global_rate", r.global_rate},
      {"time",
       r.time}}.dump());
}

void MetricsLog::append(const EvalRecord& r) {
  append_line(ordered_json{{"kind", "eval"},
                           {"epoch", r.epoch},
                           {"top1", r.top1},
                           {"top5", r.top5},
                           {"skipped_images", r.skipped_images},
                           {"nonfinite", r.nonfinite}}
                  .dump());
}

void MetricsLog::append_line(const std::string& line) {
  const std::string record = line + '\n';
  struct stat before;
  XTRAIN_CHECK(::fstat(fd_, &before) == 0, "cannot append to {}: {}", path_, std::strerror(errno));
  ssize_t written;
  do {
    written = ::write(fd_, record.data(), record.size());
  } while (written < 0 && errno == EINTR);
  if (written == static_cast<ssize_t>(record.size())) return;
  const std::string reason =
      written < 0 ? std::strerror(errno)
                  : fmt::format("{} of {} bytes written (disk full?)", written, record.size());
  // Cut off the part that went out, so that the next line does not follow a partial one.
  const bool whole_lines = written <= 0 || ::ftruncate(fd_, before.st_size) == 0;
  throw_error(__FILE__, __LINE__,
              fmt::format("cannot append to {}: {}{}", path_, reason,
                          whole_lines ? "" : " (a partial line is left, removed on the next run)"));
}

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
                             {"flags", flags}};
  AtomicFile out(path);
  out.write(summary.dump(2) + "\n");
  out.commit();
}

}  // namespace xtrain
