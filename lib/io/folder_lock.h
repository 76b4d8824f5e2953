// FolderLock: one run at a time writes a folder (a --logdir). The holder keeps a write lock
// (fcntl, on its open file description) on FOLDER/run.lock, and records its host, pid and start
// time there as JSON, which the message refusing the next run quotes.
// The kernel drops the lock when its process ends, however it ends (kill -9 too), so on one
// host a lock is taken over as soon as its holder is gone. Across hosts the lock is as good as
// the file system's locking: NFS hands fcntl locks to the server (lockd, or NFSv4 itself), but
// a mount with `nolock` (local_lock=all), or Lustre's `localflock`, keeps them on each host.
// So a record another host left is never taken over: its holder empties it when it ends, and
// a holder killed first leaves it, for the next run to refuse, naming the file to remove once
// that run is known to be gone. On a file system without locks (ENOLCK) the record decides
// alone, the pid telling on this host whether its writer is alive.
// Not here: what the folder holds (lib/train/log_dir.h).
#pragma once

#include <string>

namespace xtrain {

class FolderLock {
 public:
  // Takes the lock of `folder` (an existing folder), or throws xtrain::Error in one line that
  // starts with `flag` and names the run holding it (host, pid, start).
  FolderLock(const std::string& folder, const std::string& flag);
  // Empties the record and lets the lock go.
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

// The lock file's name in its folder.
inline constexpr const char* kFolderLockName = "run.lock";

}  // namespace xtrain
