#include "lib/train/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

namespace xtrain {
namespace {

constexpr const char* kMetricNames[] = {"CompileTime",   "ExecuteTime",
                                        "AllReduceTime", "AllReduceAcrossProcessesTime",
                                        "OptimizerTime", "DataWaitTime"};
static_assert(std::size(kMetricNames) == static_cast<size_t>(Metric::kCount));
constexpr const char* kCounterNames[] = {"CompiledPlans", "Steps", "SkippedImages"};
constexpr int kPercentiles[] = {1, 5, 10, 20, 50, 80, 90, 95, 99};

}  // namespace

std::string format_duration(double seconds) {
  const int64_t ns = std::llround(std::max(0.0, seconds) * 1e9);
  const int64_t minutes = ns / 60'000'000'000, s = ns / 1'000'000'000 % 60;
  const int64_t ms = ns / 1'000'000 % 1000;
  const double us = static_cast<double>(ns % 1'000'000) / 1000.0;
  if (minutes > 0) return fmt::format("{}m{:02}s{:03}ms{:07.3f}us", minutes, s, ms, us);
  if (s > 0) return fmt::format("{:02}s{:03}ms{:07.3f}us", s, ms, us);
  return fmt::format("{:03}ms{:07.3f}us", ms, us);
}

void Metrics::record(Metric metric, double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  Samples& m = metrics_[static_cast<int>(metric)];
  m.latest[m.total_samples % kWindow] = seconds;
  ++m.total_samples;
  m.accumulator += seconds;
}

void Metrics::add(Counter counter, int64_t by) {
  std::lock_guard<std::mutex> lock(mutex_);
  counters_[static_cast<int>(counter)] += by;
}

int64_t Metrics::value(Counter counter) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counters_[static_cast<int>(counter)];
}

std::string Metrics::report(Clock::time_point now) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const double elapsed = std::max(1e-9, std::chrono::duration<double>(now - start_).count());
  std::string out;
  for (int i = 0; i < static_cast<int>(Metric::kCount); ++i) {
    const Samples& m = metrics_[i];
    if (m.total_samples == 0) continue;
    std::vector<double> latest(m.latest.begin(),
                               m.latest.begin() + std::min<int64_t>(m.total_samples, kWindow));
    std::sort(latest.begin(), latest.end());
    std::string percentiles;
    for (int p : kPercentiles) {
      const size_t index = std::min(latest.size() - 1, latest.size() * p / 100);
      percentiles += fmt::format("{}{}%={}", percentiles.empty() ? "" : "; ", p,
                                 format_duration(latest[index]));
    }
    out += fmt::format(
        "Metric: {}\n  TotalSamples: {}\n  Accumulator: {}\n  ValueRate: {} / second\n"
        "  Rate: {:.6g} / second\n  Percentiles: {}\n",
        kMetricNames[i], m.total_samples, format_duration(m.accumulator),
        format_duration(m.accumulator / elapsed), m.total_samples / elapsed, percentiles);
  }
  for (int i = 0; i < static_cast<int>(Counter::kCount); ++i) {
    out += fmt::format("Counter: {}\n  Value: {}\n", kCounterNames[i], counters_[i]);
  }
  out.pop_back();  // the caller's log line ends it
  return out;
}

}  // namespace xtrain
