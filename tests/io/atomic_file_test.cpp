#include "lib/io/atomic_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "lib/base/check.h"
#include "lib/io/safetensors.h"
#include "tests/io/io_test_util.h"

namespace xtrain {
namespace {

using Names = std::vector<std::string>;

TEST(AtomicFile, ReplacesTheFileOnCommit) {
  testing::TempDir dir;
  const std::string path = dir.file("summary.json");
  testing::write_bytes(path, "old");
  AtomicFile out(path);
  out.write("new ");
  out.write("content");
  EXPECT_EQ(testing::read_bytes(path), "old");  // untouched until commit
  out.commit();
  EXPECT_EQ(testing::read_bytes(path), "new content");
  EXPECT_EQ(dir.names(), Names{"summary.json"});
}

TEST(AtomicFile, AWriterDroppedBeforeCommitLeavesNoTrace) {
  testing::TempDir dir;
  {
    AtomicFile out(dir.file("a.txt"));
    out.write("partial");
  }
  EXPECT_EQ(dir.names(), Names{});
}

TEST(AtomicFile, AFolderThatDoesNotExistIsAClearError) {
  try {
    AtomicFile out("/nonexistent-folder/a.txt");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write /nonexistent-folder/a.txt"),
              std::string::npos)
        << e.what();
  }
}

TEST(AtomicFile, AWriteFailingMidwayKeepsTheOldFile) {
  testing::TempDir dir;
  const std::string path = dir.file("checkpoint-last.safetensors");
  Safetensors small;
  small.tensors["w"] = {DType::kF32, {4}, std::vector<uint8_t>(16, 7)};
  write_safetensors(path, small);
  const std::string old_bytes = testing::read_bytes(path);

  Safetensors big;
  big.tensors["w"] = {DType::kF32, {1 << 16}, std::vector<uint8_t>(1 << 18, 9)};
  {
    testing::FileSizeLimit limit(100000);
    try {
      write_safetensors(path, big);
      FAIL() << "the write did not fail";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("the previous file, if any, is unchanged"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(testing::read_bytes(path), old_bytes);
  EXPECT_EQ(dir.names(), Names{"checkpoint-last.safetensors"});  // no temporary file left
  write_safetensors(path, big);                                  // and the next write works
  EXPECT_EQ(read_safetensors(path).tensors.at("w").data, big.tensors.at("w").data);
}

// Found before any writing, not by the rename after it all.
TEST(AtomicFile, AFolderTargetIsRefusedAtOnce) {
  testing::TempDir dir;
  std::filesystem::create_directory(dir.file("taken"));
  try {
    AtomicFile out(dir.file("taken"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write " + dir.file("taken") + ": Is a directory"),
              std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(std::filesystem::is_directory(dir.file("taken")));
  EXPECT_EQ(dir.names(), Names{"taken"});
}

// Whoever wrote them, live or gone, on this host or another: telling is the folder lock's job.
TEST(AtomicFile, TemporaryFilesNameTheirTarget) {
  const std::string dead = std::to_string(testing::dead_pid());
  EXPECT_EQ(temporary_target("checkpoint-last.safetensors.tmp." + dead + ".0"),
            "checkpoint-last.safetensors");
  EXPECT_EQ(temporary_target("a.tmp.b.tmp." + dead + ".12"), "a.tmp.b");
  const std::string ours = temporary_path_for("summary.json");
  EXPECT_EQ(ours.rfind("summary.json.tmp." + std::to_string(::getpid()) + ".", 0), 0u) << ours;
  EXPECT_EQ(temporary_target(ours), "summary.json");
  // Not a name temporary_path_for makes.
  for (const std::string& name :
       Names{"summary.json", "summary.json.tmp", "summary.json.tmp." + dead,
             "summary.json.tmp." + dead + ".", "summary.json.tmp." + dead + ".01",
             "summary.json.tmp.0" + dead + ".0", "summary.json.tmp.0.0", ".tmp." + dead + ".0",
             "summary.json.tmp." + dead + ".0.bak", "summary.json.tmp.1234567890.0"}) {
    EXPECT_EQ(temporary_target(name), "") << name;
  }
}

}  // namespace
}  // namespace xtrain
