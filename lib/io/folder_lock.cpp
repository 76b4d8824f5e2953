#include "lib/io/folder_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "lib/base/check.h"
#include "lib/io/host_name.h"

namespace xtrain {
namespace {

using nlohmann::ordered_json;

// The run that holds the lock, or held it last, as run.lock records it.
struct Holder {
  std::string host;
  int64_t pid = 0;
  std::string started;  // local time, "2026-11-28 04:10:00"

  std::string describe() const {
    return fmt::format("the run of PID {} on host {} (started {})", pid, host, started);
  }
};

// The record in the file; none when it is empty (released) or not a whole record (its writer
// was killed while writing it).
std::optional<Holder> read_holder(int fd) {
  char text[4096];
  const ssize_t n = ::pread(fd, text, sizeof text, 0);
  if (n <= 0) return std::nullopt;
  const ordered_json record = ordered_json::parse(text, text + n, nullptr, false);
  if (!record.is_object()) return std::nullopt;
  const auto host = record.find("host"), pid = record.find("pid"), started = record.find("started");
  if (host == record.end() || !host->is_string() || pid == record.end() ||
      !pid->is_number_integer() || started == record.end() || !started->is_string()) {
    return std::nullopt;
  }
  return Holder{host->get<std::string>(), pid->get<int64_t>(), started->get<std::string>()};
}

enum class KernelLock { kTaken, kHeldElsewhere, kUnsupported };

// A write lock on the whole file, without waiting. An open file description's lock (OFD), not a
// classic POSIX one: that one belongs to the process, and any close() of the file in it drops
// the lock; this one excludes every other open of the file, in this process too.
KernelLock lock_whole_file(int fd) {
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;  // l_start 0, l_len 0: the whole file, however long
  if (::fcntl(fd, F_OFD_SETLK, &lock) == 0) return KernelLock::kTaken;
  if (errno == EAGAIN || errno == EACCES) return KernelLock::kHeldElsewhere;
  return KernelLock::kUnsupported;  // ENOLCK: no lock manager; EINVAL: a kernel before OFD locks
}

// Signal 0 only asks; EPERM means the process exists but is another user's.
bool process_is_alive(int64_t pid) {
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH);
}

std::string local_time_now() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  ::localtime_r(&now, &local);
  char text[32];
  return std::string(text, std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &local));
}

// Refuses the folder unless this process may take it over: throws naming the run in the way.
void check_takeover(int fd, const std::string& folder, const std::string& flag,
                    const std::string& path) {
  const KernelLock kernel = lock_whole_file(fd);
  const std::optional<Holder> holder = read_holder(fd);
  const std::string in_use = fmt::format(
      "{} {} is in use by {}; give this run another {}, or "
      "let that one end first",
      flag, folder, holder ? holder->describe() : "another run", flag);
  XTRAIN_CHECK(kernel != KernelLock::kHeldElsewhere, "{}", in_use);
  if (!holder) return;
  const std::string here = host_name();
  XTRAIN_CHECK(holder->host == here,
               "{} {} was locked by {}, which cannot be checked from host {}: if that run has "
               "ended, remove {} and start again",
               flag, folder, holder->describe(), here, path);
  // The kernel's lock would have told that a writer on this host is alive.
  XTRAIN_CHECK(kernel == KernelLock::kTaken || !process_is_alive(holder->pid), "{}", in_use);
}

void write_holder(int fd, const std::string& flag, const std::string& path) {
  const std::string record =
      ordered_json{{"host", host_name()}, {"pid", ::getpid()}, {"started", local_time_now()}}
          .dump() +
      "\n";
  // fsync: another host reads the file from the server, not from this host's cache.
  errno = 0;  // a short write sets none
  const bool written =
      ::ftruncate(fd, 0) == 0 &&
      ::pwrite(fd, record.data(), record.size(), 0) == static_cast<ssize_t>(record.size()) &&
      ::fsync(fd) == 0;
  XTRAIN_CHECK(written, "{}: cannot write {}: {}", flag, path,
               errno != 0 ? std::strerror(errno) : "a short write (disk full?)");
}

}  // namespace

FolderLock::FolderLock(const std::string& folder, const std::string& flag)
    : path_((std::filesystem::path(folder) / kFolderLockName).string()) {
  const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  XTRAIN_CHECK(fd >= 0, "{}: cannot open {}: {}", flag, path_, std::strerror(errno));
  try {
    check_takeover(fd, folder, flag, path_);
    write_holder(fd, flag, path_);
  } catch (...) {
    ::close(fd);
    throw;
  }
  fd_ = fd;
}

FolderLock::~FolderLock() {
  // An empty record frees the folder for any host; the kernel's lock goes with the close.
  const bool emptied = ::ftruncate(fd_, 0) == 0;
  (void)emptied;  // nothing to do: the record names a run that has ended, as after a kill
  ::close(fd_);
}

}  // namespace xtrain
