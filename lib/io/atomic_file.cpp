#include "lib/io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <regex>

#include "lib/base/check.h"

namespace xtrain {
namespace {

std::string folder_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The rename is only durable once the folder's entry is on disk too. Some file systems cannot
// sync a folder; the new file is in place by then, so that is not an error.
void sync_folder(const std::string& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

std::string temporary_path_for(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  return fmt::format("{}.tmp.{}.{}", path, ::getpid(), counter++);
}

std::string temporary_target(const std::string& name) {
  // Exactly what temporary_path_for writes; a pid has at most 9 digits.
  static const std::regex kTemporaryName(R"((.+)\.tmp\.[1-9][0-9]{0,8}\.(0|[1-9][0-9]*))");
  std::smatch match;
  return std::regex_match(name, match, kTemporaryName) ? match[1].str() : "";
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  struct stat target;
  if (::stat(path_.c_str(), &target) == 0 && S_ISDIR(target.st_mode)) fail(EISDIR);
  const std::string temp_path = temporary_path_for(path_);
  // 0666 minus the umask: the same permissions as a file written the ordinary way.
  fd_ = ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd_ < 0) fail(errno);
  temp_path_ = temp_path;  // ours to remove from now on
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
  temp_path_.clear();
}

void AtomicFile::fail(int error) {
  discard();
  throw_error(__FILE__, __LINE__,
              fmt::format("cannot write {}: {} (the previous file, if any, is unchanged)", path_,
                          std::strerror(error)));
}

void AtomicFile::write(const void* data, size_t size) {
  XTRAIN_CHECK(fd_ >= 0, "cannot write {}: already committed or failed", path_);
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(n < 0 ? errno : EIO);
    p += n;
    size -= static_cast<size_t>(n);
  }
}

void AtomicFile::commit() {
  XTRAIN_CHECK(fd_ >= 0, "cannot write {}: already committed or failed", path_);
  if (::fsync(fd_) != 0) fail(errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail(errno);
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) fail(errno);
  temp_path_.clear();
  sync_folder(folder_of(path_));
}

}  // namespace xtrain
