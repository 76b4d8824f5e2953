// The --metrics_debug report: torch_xla's duration format, totals, rates and percentiles.
#include "lib/train/metrics.h"

#include <gtest/gtest.h>

namespace xtrain {
namespace {

TEST(Metrics, DurationsPrintAsTorchXlaDoes) {
  EXPECT_EQ(format_duration(0.002614286), "002ms614.286us");
  EXPECT_EQ(format_duration(5.709034036), "05s709ms034.036us");
  EXPECT_EQ(format_duration(669.007554283), "11m09s007ms554.283us");
  EXPECT_EQ(format_duration(0.0), "000ms000.000us");
}

TEST(Metrics, ReportHasTotalsRatesPercentilesAndCounters) {
  const Metrics::Clock::time_point start{};
  Metrics metrics(start);
  for (int i = 1; i <= 100; ++i) metrics.record(Metric::kExecuteTime, i / 1000.0);  // 1..100 ms
  metrics.add(Counter::kSteps, 100);
  metrics.add(Counter::kSkippedImages);
  const std::string report = metrics.report(start + std::chrono::seconds(10));
  EXPECT_NE(report.find("Metric: ExecuteTime\n  TotalSamples: 100\n"
                        "  Accumulator: 05s050ms000.000us\n"
                        "  ValueRate: 505ms000.000us / second\n  Rate: 10 / second\n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("Percentiles: 1%=002ms000.000us; 5%=006ms000.000us;"), std::string::npos)
      << report;
  EXPECT_NE(report.find("50%=051ms000.000us;"), std::string::npos) << report;
  EXPECT_NE(report.find("99%=100ms000.000us"), std::string::npos) << report;
  EXPECT_EQ(report.find("Metric: CompileTime"), std::string::npos) << "no samples, no section";
  EXPECT_NE(report.find("Counter: Steps\n  Value: 100\n"), std::string::npos) << report;
  EXPECT_NE(report.find("Counter: SkippedImages\n  Value: 1"), std::string::npos) << report;
  EXPECT_EQ(metrics.value(Counter::kSteps), 100);
}

}  // namespace
}  // namespace xtrain
