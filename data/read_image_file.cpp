#include "data/read_image_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>
#include <system_error>

namespace xtrain {
namespace {

std::string error_text(int error) { return std::generic_category().message(error); }

// Why a file of this mode is not read, or empty for a regular file.
std::string not_regular(mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "not a regular file (a folder)";
  if (S_ISFIFO(mode)) return "not a regular file (a FIFO)";
  if (S_ISCHR(mode)) return "not a regular file (a character device)";
  if (S_ISBLK(mode)) return "not a regular file (a block device)";
  if (S_ISSOCK(mode)) return "not a regular file (a socket)";
  return "not a regular file";
}

// The problem with reading a file of this status, or empty when it may be read.
std::string refusal(const struct stat& info, int64_t max_bytes) {
  std::string problem = not_regular(info.st_mode);
  if (problem.empty() && info.st_size > max_bytes) {
    problem = fmt::format("{} bytes is over --max_image_bytes={}", info.st_size, max_bytes);
  }
  return problem;
}

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

bool read_image_head(const std::string& path, int64_t max_bytes, size_t head,
                     std::vector<uint8_t>* bytes, std::string* problem) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {  // stat, not lstat: links are followed
    *problem = error_text(errno);
    return false;
  }
  *problem = refusal(info, max_bytes);
  if (!problem->empty()) return false;
  // O_NONBLOCK: opening a FIFO swapped in since stat returns at once instead of waiting for a
  // writer; O_NOCTTY: a terminal swapped in does not become ours.
  const FileDescriptor file(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (file.get() < 0) {
    *problem = error_text(errno);
    return false;
  }
  if (fstat(file.get(), &info) != 0) {
    *problem = error_text(errno);
    return false;
  }
  *problem = refusal(info, max_bytes);
  if (!problem->empty()) return false;

  bytes->clear();
  bytes->reserve(std::min(static_cast<size_t>(info.st_size), head));
  uint8_t chunk[1 << 16];
  while (bytes->size() < head) {
    const ssize_t n = read(file.get(), chunk, std::min(sizeof(chunk), head - bytes->size()));
    if (n == 0) return true;
    if (n < 0) {
      if (errno == EINTR) continue;
      *problem = error_text(errno);
      return false;
    }
    if (static_cast<int64_t>(bytes->size()) + n > max_bytes) {
      *problem = fmt::format("the file grew over --max_image_bytes={} while being read", max_bytes);
      return false;
    }
    bytes->insert(bytes->end(), chunk, chunk + n);
  }
  return true;
}

bool read_image_file(const std::string& path, int64_t max_bytes, std::vector<uint8_t>* bytes,
                     std::string* problem) {
  return read_image_head(path, max_bytes, std::numeric_limits<size_t>::max(), bytes, problem);
}

}  // namespace xtrain
