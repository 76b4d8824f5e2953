// Metrics: what --metrics_debug reports at the end of each epoch, in the format of torch_xla's
// metrics_report(): timed metrics (samples of seconds, with totals, rates and percentiles over
// the latest samples) and counters. Every core records into one Metrics; recording is
// thread-safe and allocates nothing.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace xtrain {

enum class Metric {
  kCompileTime,    // building a Plan for a new input shape
  kExecuteTime,    // forward + backward of a training step
  kAllReduceTime,  // the gradient all-reduce (includes waiting for slower cores and processes)
  kAllReduceAcrossProcessesTime,  // of it, the sum across a job's processes (MPI; jobs only)
  kOptimizerTime,                 // the SGD step
  kDataWaitTime,                  // a core waiting for its next batch: the input-bound signal
  kCount
};

enum class Counter { kCompiledPlans, kSteps, kSkippedImages, kCount };

class Metrics {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Metrics(Clock::time_point start = Clock::now()) : start_(start) {}

  void record(Metric metric, double seconds);
  void add(Counter counter, int64_t by = 1);
  int64_t value(Counter counter) const;

  // The report: "Metric: CompileTime\n  TotalSamples: 2\n  Accumulator: ...", then counters.
  std::string report(Clock::time_point now = Clock::now()) const;

 private:
  static constexpr int kWindow = 1024;  // percentiles over the latest samples, as torch_xla

  struct Samples {
    int64_t total_samples = 0;
    double accumulator = 0.0;  // seconds over all samples
    std::array<double, kWindow> latest{};
  };

  Clock::time_point start_;
  mutable std::mutex mutex_;
  std::array<Samples, static_cast<int>(Metric::kCount)> metrics_;
  std::array<int64_t, static_cast<int>(Counter::kCount)> counters_{};
};

// torch_xla's duration format: "05s709ms034.036us", "002ms614.286us", "11m09s007ms554.283us".
std::string format_duration(double seconds);

// Seconds since `start`, for timing a phase: Metrics::record(m, seconds_since(t0)).
inline double seconds_since(Metrics::Clock::time_point start) {
  return std::chrono::duration<double>(Metrics::Clock::now() - start).count();
}

}  // namespace xtrain
