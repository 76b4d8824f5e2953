#include "lib/train/chrome_trace.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "lib/base/check.h"
#include "tests/io/io_test_util.h"

namespace xtrain {
namespace {

using Names = std::vector<std::string>;

// --profile is checked before training: a path the trace cannot go to fails at once, naming the
// flag, and leaves nothing behind.
TEST(ChromeTrace, APathThatCannotBeWrittenIsRefusedUpFront) {
  testing::TempDir dir;
  std::filesystem::create_directory(dir.file("folder"));
  testing::write_bytes(dir.file("file"), "x");
  for (const std::string& path :
       {dir.file("folder"), dir.file("missing/trace.json"), dir.file("file/trace.json")}) {
    try {
      check_chrome_trace_path(path);
      ADD_FAILURE() << path << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--profile: cannot write " + path + ": ", 0), 0u)
          << e.what();
    }
  }
  EXPECT_EQ(dir.names(), (Names{"file", "folder"}));
  EXPECT_TRUE(std::filesystem::is_empty(dir.file("folder")));

  check_chrome_trace_path(dir.file("trace.json"));
  EXPECT_EQ(dir.names(), (Names{"file", "folder"}));  // checked, not written
}

}  // namespace
}  // namespace xtrain
