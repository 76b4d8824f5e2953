// read_image_file: only regular files are read, never blocking on a FIFO or streaming a device,
// and never more than max_bytes, even from a file whose size stat does not tell; a head is the
// file's first bytes, under the same checks.
#include "data/read_image_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <future>

#include "data/image_limits.h"
#include "tests/data/temp_folder.h"

namespace xtrain {
namespace {

using testing::TempFolder;

constexpr int64_t kMaxBytes = ImageLimits{}.max_bytes;

std::string problem_reading(const std::string& path, int64_t max_bytes = kMaxBytes) {
  std::vector<uint8_t> bytes;
  std::string problem;
  EXPECT_FALSE(read_image_file(path, max_bytes, &bytes, &problem)) << path;
  return problem;
}

TEST(ReadImageFile, ReadsARegularFileAndFollowsLinks) {
  TempFolder t;
  const std::vector<uint8_t> content = {1, 2, 3, 0, 255};
  const std::string path = t.write("a.png", content);
  std::filesystem::create_symlink(path, t.path() + "/link.png");
  for (const std::string& name : {path, t.path() + "/link.png"}) {
    std::vector<uint8_t> bytes;
    std::string problem;
    EXPECT_TRUE(read_image_file(name, kMaxBytes, &bytes, &problem)) << problem;
    EXPECT_EQ(bytes, content);
  }
}

TEST(ReadImageFile, AFifoIsRefusedWithoutBlocking) {
  TempFolder t;
  const std::string fifo = t.path() + "/x.png";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  auto problem = std::async(std::launch::async, [&] { return problem_reading(fifo); });
  if (problem.wait_for(std::chrono::seconds(30)) == std::future_status::timeout) {
    ADD_FAILURE() << "reading a FIFO blocked";
    close(open(fifo.c_str(), O_WRONLY | O_NONBLOCK));  // a writer comes and goes: the read ends
  }
  EXPECT_EQ(problem.get(), "not a regular file (a FIFO)");
}

TEST(ReadImageFile, DevicesFoldersAndSocketsAreRefused) {
  TempFolder t;
  std::filesystem::create_symlink("/dev/zero", t.path() + "/zero.png");
  EXPECT_EQ(problem_reading(t.path() + "/zero.png"), "not a regular file (a character device)");
  std::filesystem::create_directory(t.path() + "/folder.png");
  EXPECT_EQ(problem_reading(t.path() + "/folder.png"), "not a regular file (a folder)");

  const std::string socket_path = t.path() + "/socket.png";
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(socket_path.size(), sizeof(address.sun_path));
  std::strcpy(address.sun_path, socket_path.c_str());
  const int server = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_EQ(bind(server, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  EXPECT_EQ(problem_reading(socket_path), "not a regular file (a socket)");
  close(server);
}

TEST(ReadImageFile, MissingFileSaysSo) {
  TempFolder t;
  EXPECT_EQ(problem_reading(t.path() + "/none.png"), "No such file or directory");
}

TEST(ReadImageFile, FilesOverTheByteCapAreRefusedUnread) {
  TempFolder t;
  const std::string path = t.write("big.png", std::vector<uint8_t>(1000, 7));
  EXPECT_EQ(problem_reading(path, 999), "1000 bytes is over --max_image_bytes=999");
  std::vector<uint8_t> bytes;
  std::string problem;
  EXPECT_TRUE(read_image_file(path, 1000, &bytes, &problem)) << problem;
  EXPECT_EQ(bytes.size(), 1000u);
}

TEST(ReadImageFile, AHeadIsTheFirstBytesUnderTheSameChecks) {
  TempFolder t;
  std::vector<uint8_t> content(200000);
  for (size_t i = 0; i < content.size(); ++i) content[i] = static_cast<uint8_t>(i * 7);
  const std::string path = t.write("a.png", content);
  std::vector<uint8_t> bytes;
  std::string problem;
  EXPECT_TRUE(read_image_head(path, kMaxBytes, 70000, &bytes, &problem)) << problem;
  EXPECT_EQ(bytes, std::vector<uint8_t>(content.begin(), content.begin() + 70000));
  EXPECT_TRUE(read_image_head(path, kMaxBytes, 300000, &bytes, &problem)) << problem;
  EXPECT_EQ(bytes, content);  // a shorter file: all of it
  EXPECT_FALSE(read_image_head(path, 199999, 10, &bytes, &problem));
  EXPECT_EQ(problem, "200000 bytes is over --max_image_bytes=199999");
  EXPECT_FALSE(read_image_head(t.path(), kMaxBytes, 10, &bytes, &problem));
  EXPECT_EQ(problem, "not a regular file (a folder)");
}

// /proc files are regular files whose stat size is 0 whatever they hold: like a file that grows
// after fstat, only the bounded read loop can stop them.
TEST(ReadImageFile, TheByteCapHoldsWhileReading) {
  struct stat info;
  ASSERT_EQ(stat("/proc/self/status", &info), 0);
  ASSERT_TRUE(S_ISREG(info.st_mode));
  ASSERT_EQ(info.st_size, 0);
  EXPECT_EQ(problem_reading("/proc/self/status", 100),
            "the file grew over --max_image_bytes=100 while being read");
}

}  // namespace
}  // namespace xtrain
