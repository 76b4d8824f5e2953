#include "lib/train/log_dir.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "tests/io/io_test_util.h"

namespace xtrain {
namespace {

using Names = std::vector<std::string>;

// A killed run left temporary files of checkpoints and the summary (its pid is gone); a new run
// removes those and nothing else: not a live writer's, not another program's files.
TEST(LogDir, RemovesTheTemporaryFilesOfKilledWritesAtStart) {
  testing::TempDir dir;
  const std::string dead = std::to_string(testing::dead_pid());
  const std::string live = std::to_string(::getppid());
  const Names stale = {"checkpoint-epoch-12.safetensors.tmp." + dead + ".3",
                       "checkpoint-last.safetensors.tmp." + dead + ".0",
                       "model_best.safetensors.tmp." + dead + ".1",
                       "summary.json.tmp." + dead + ".7"};
  const Names kept = {
      "checkpoint-last.safetensors",
      "checkpoint-last.safetensors.tmp." + live + ".0",  // a writer still at work
      "checkpoint-last.safetensors.tmp." + dead,         // not our naming
      "checkpoint-epoch-x.safetensors.tmp." + dead + ".0",
      "metrics.jsonl.tmp." + dead + ".0",  // metrics.jsonl is appended, never written whole
      "notes.txt.tmp." + dead + ".0",
      "summary.json.tmp." + dead + ".0.bak",
      "summary.json.tmp." + dead + ".1"};  // a folder, not a file
  for (const std::string& name : stale) testing::write_bytes(dir.file(name), "x");
  for (const std::string& name : kept) testing::write_bytes(dir.file(name), "x");
  std::filesystem::remove(dir.file(kept.back()));
  std::filesystem::create_directory(dir.file(kept.back()));

  LogDir log_dir(dir.file(""), /*keep_checkpoints=*/1);

  Names expected = kept;
  expected.push_back("metrics.jsonl");
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(dir.names(), expected);
}

}  // namespace
}  // namespace xtrain
