#include "lib/io/metrics_log.h"

#include <nlohmann/json.hpp>

#include "lib/base/check.h"
#include "lib/io/atomic_file.h"

namespace xtrain {

using nlohmann::ordered_json;

MetricsLog::MetricsLog(std::string path) : path_(std::move(path)), out_(path_, std::ios::app) {
  XTRAIN_CHECK(out_.is_open(), "cannot open {} for appending", path_);
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
  out_ << line << '\n';
  out_.flush();
  XTRAIN_CHECK(out_.good(), "cannot append to {}", path_);
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
