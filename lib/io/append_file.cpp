#include "lib/io/append_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "lib/base/check.h"

namespace xtrain {

AppendFile::AppendFile(std::string path, Mode mode) : path_(std::move(path)) {
  const int create = mode == Mode::kCreateNew ? O_CREAT | O_EXCL : O_CREAT;
  // O_APPEND: each write lands at the end of the file as it is then.
  fd_ = ::open(path_.c_str(), O_RDWR | O_APPEND | O_CLOEXEC | create, 0666);
  XTRAIN_CHECK(fd_ >= 0, "cannot open {} for appending: {}", path_, std::strerror(errno));
}

AppendFile::~AppendFile() { ::close(fd_); }

void AppendFile::append(std::string_view record) {
  struct stat before;
  XTRAIN_CHECK(::fstat(fd_, &before) == 0, "cannot append to {}: {}", path_, std::strerror(errno));
  ssize_t written;
  do {
    written = ::write(fd_, record.data(), record.size());
  } while (written < 0 && errno == EINTR);
  if (written == static_cast<ssize_t>(record.size())) return;
  const std::string reason =
      written < 0 ? std::strerror(errno)
                  : fmt::format("{} of {} bytes written (disk full?)", written, record.size());
  // Cut off the part that went out, so that the next record does not follow a partial one.
  const bool whole_records = written <= 0 || ::ftruncate(fd_, before.st_size) == 0;
  throw_error(__FILE__, __LINE__,
              fmt::format("cannot append to {}: {}{}", path_, reason,
                          whole_records ? "" : " (a partial record is left at its end)"));
}

}  // namespace xtrain
