#include "lib/io/metrics_log.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lib/base/check.h"
#include "tests/io/io_test_util.h"

namespace xtrain {
namespace {

using nlohmann::json;

std::vector<json> read_lines(const std::string& path) {
  std::istringstream in(testing::read_bytes(path));
  std::vector<json> out;
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  return out;
}

TEST(MetricsLog, OneJsonObjectPerLineReadableAtOnce) {
  testing::TempDir dir;
  const std::string path = dir.file("metrics.jsonl");
  MetricsLog log(path);
  log.append(TrainRecord{1, 20, 3, 6.90625, 0.1, 412.5, 398.25, "12:34:56", 520, 0.25});
  // Readable before the log is closed: each line is flushed as written.
  std::vector<json> lines = read_lines(path);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], json::parse(R"({"kind": "train", "epoch": 1, "step": 20, "core": 3,
      "loss": 6.90625, "lr": 0.1, "rate": 412.5, "global_rate": 398.25, "time": "12:34:56",
      "global_step": 520, "data_wait": 0.25})"));

  log.append(EvalRecord{1, 75.5, 92.25, 2, 7, 98, /*ema=*/false, 754.25});
  log.append(TrainRecord{2, 0, 0, NAN, 0.1, 1, 1, "12:35:00"});
  lines = read_lines(path);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1], json::parse(R"({"kind": "eval", "epoch": 1, "top1": 75.5, "top5": 92.25,
      "skipped_images": 2, "nonfinite": 7, "samples": 98, "run_seconds": 754.25})"));
  EXPECT_TRUE(lines[2]["loss"].is_null());  // JSON has no NaN

  // --model_ema's evaluation: its own kind, so that "eval" stays the model's.
  log.append(EvalRecord{1, 76.5, 93.25, 2, 0, 98, /*ema=*/true, 760.5});
  lines = read_lines(path);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[3], json::parse(R"({"kind": "eval_ema", "epoch": 1, "top1": 76.5,
      "top5": 93.25, "skipped_images": 2, "nonfinite": 0, "samples": 98, "run_seconds": 760.5})"));
}

TEST(MetricsLog, AResumedRunAppends) {
  testing::TempDir dir;
  const std::string path = dir.file("metrics.jsonl");
  MetricsLog(path).append(EvalRecord{1, 10, 50, 0});
  MetricsLog(path).append(EvalRecord{2, 20, 60, 0});
  const std::vector<json> lines = read_lines(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["epoch"], 1);
  EXPECT_EQ(lines[1]["epoch"], 2);
}

// A full disk in the middle of a line: the part that went out is cut off again, so a resumed run
// never appends after half a record.
TEST(MetricsLog, AnAppendThatDoesNotFitLeavesOnlyWholeLines) {
  testing::TempDir dir;
  const std::string path = dir.file("metrics.jsonl");
  MetricsLog log(path);
  log.append(EvalRecord{1, 10, 50, 0});
  const std::string before = testing::read_bytes(path);
  for (const size_t room : {10, 0}) {  // a short write, then a failing one
    {
      testing::FileSizeLimit limit(before.size() + room);
      try {
        log.append(TrainRecord{2, 0, 0, 2.5, 0.1, 1, 1, "12:35:00"});
        ADD_FAILURE() << "the append did not fail";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot append to " + path + ": "), std::string::npos)
            << e.what();
      }
    }
    EXPECT_EQ(testing::read_bytes(path), before) << room << " bytes of room";
  }
  log.append(EvalRecord{2, 20, 60, 0});  // with room again, appending goes on
  const std::vector<json> lines = read_lines(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1]["epoch"], 2);
}

TEST(MetricsLog, AFullDeviceIsAClearError) {
  MetricsLog log("/dev/full");
  try {
    log.append(EvalRecord{1, 10, 50, 0});
    FAIL() << "the append did not fail";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot append to /dev/full: No space left on device");
  }
}

// A crash (or an older xtrain on a full disk) left a partial last line: a resumed run removes it,
// and only it, before it appends.
TEST(MetricsLog, AResumedRunRemovesAPartialLastLine) {
  testing::TempDir dir;
  const std::string path = dir.file("metrics.jsonl");
  const std::string whole = R"({"kind":"eval","epoch":1,"top1":10})"
                            "\n"
                            R"({"kind":"note","text":")" +
                            std::string(5000, 'x') + "\"}\n";  // longer than a read block
  for (const std::string& partial :
       {std::string(R"({"kind":"eval","ep)"), std::string(9000, 'y'), std::string("\r")}) {
    for (const std::string& kept : {whole, std::string()}) {
      testing::write_bytes(path, kept + partial);
      MetricsLog log(path);
      EXPECT_EQ(testing::read_bytes(path), kept) << partial.size() << "-byte partial line";
      log.append(EvalRecord{2, 20, 60, 0});
      EXPECT_EQ(read_lines(path).size(), kept.empty() ? 1u : 3u);
    }
  }
  // Whole lines stay as they are.
  testing::write_bytes(path, whole);
  { MetricsLog reopened(path); }
  EXPECT_EQ(testing::read_bytes(path), whole);
}

TEST(MetricsLog, AnUnwritablePathIsAClearError) {
  EXPECT_THROW(MetricsLog("/nonexistent-folder/metrics.jsonl"), Error);
}

TEST(Summary, WritesEveryFieldWithTheFlagsAsAnObject) {
  testing::TempDir dir;
  const std::string path = dir.file("summary.json");
  testing::write_bytes(path, "old");
  // Resumed once: 3600.5 s in this process, 7200.25 over the run; 75% was first reached at
  // epoch 40, 80% never.
  write_summary(path, RunSummary{76.25,
                                 93.0,
                                 76.0,
                                 92.75,
                                 90,
                                 3600.5,
                                 1234.5,
                                 R"({"model": "resnet50", "lr": 0.1})",
                                 7200.25,
                                 {75.0, 80.0},
                                 {{1, 10.0, 80.0}, {40, 75.5, 3200.0}, {62, 76.25, 5000.0}}});
  EXPECT_EQ(json::parse(testing::read_bytes(path)), json::parse(R"({
      "max_top1": 76.25, "max_top5": 93.0, "final_top1": 76.0, "final_top5": 92.75,
      "epochs": 90, "total_seconds": 3600.5, "images_per_second": 1234.5,
      "run_seconds": 7200.25,
      "time_to_top1": [{"top1": 75.0, "epoch": 40, "run_seconds": 3200.0},
                       {"top1": 80.0, "epoch": null, "run_seconds": null}],
      "flags": {"model": "resnet50", "lr": 0.1}})"));
  EXPECT_EQ(dir.names(), std::vector<std::string>{"summary.json"});
}

TEST(Summary, FlagsThatAreNotAJsonObjectAreRejectedAndTheOldFileKept) {
  testing::TempDir dir;
  const std::string path = dir.file("summary.json");
  testing::write_bytes(path, "old");
  RunSummary summary;
  summary.flags = "--lr=0.1";
  EXPECT_THROW(write_summary(path, summary), Error);
  summary.flags = "[1]";
  EXPECT_THROW(write_summary(path, summary), Error);
  EXPECT_EQ(testing::read_bytes(path), "old");
}

}  // namespace
}  // namespace xtrain
