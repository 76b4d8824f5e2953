#include "lib/io/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>

#include "lib/base/check.h"
#include "lib/io/safetensors.h"
#include "tests/io/io_test_util.h"

namespace xtrain {
namespace {

using Names = std::vector<std::string>;

// While alive, files of this process cannot grow past `bytes`: a write beyond fails with EFBIG,
// as one fails on a full disk, partway through the file.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);  // fail the write instead of killing us
    getrlimit(RLIMIT_FSIZE, &old_limit_);
    rlimit limit = old_limit_;
    limit.rlim_cur = bytes;
    EXPECT_EQ(setrlimit(RLIMIT_FSIZE, &limit), 0);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old_limit_);
    std::signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit old_limit_;
  void (*old_handler_)(int);
};

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
    FileSizeLimit limit(100000);
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

TEST(AtomicFile, ARenameFailingKeepsWhatWasThere) {
  testing::TempDir dir;
  std::filesystem::create_directory(dir.file("taken"));  // a folder cannot be replaced by a file
  AtomicFile out(dir.file("taken"));
  out.write("x");
  EXPECT_THROW(out.commit(), Error);
  EXPECT_TRUE(std::filesystem::is_directory(dir.file("taken")));
  EXPECT_EQ(dir.names(), Names{"taken"});
}

}  // namespace
}  // namespace xtrain
