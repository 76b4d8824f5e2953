// AtomicFile: writes a file so that readers only ever see the old content or the complete new
// one. Bytes go to a temporary file in the same folder; commit() flushes and fsyncs it, then
// renames it over the target. Until then the target is untouched, and a writer destroyed
// without commit() (an exception, a full disk) removes its temporary file; a writer killed
// first leaves it, and temporary_target() tells such left-overs apart.
// Not here: what the bytes are (safetensors.h, metrics_log.h).
#pragma once

#include <cstddef>
#include <string>

namespace xtrain {

class AtomicFile {
 public:
  // Creates the temporary file next to `path`; throws xtrain::Error if the folder is not writable
  // or `path` is a folder (found now rather than by the rename, after all the writing).
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, size_t size);
  void write(const std::string& text) { write(text.data(), text.size()); }
  // Makes the new content durable and puts it in place of the target.
  void commit();

 private:
  void discard();
  [[noreturn]] void fail(int error);  // discards, then throws naming path_ and the error

  std::string path_, temp_path_;
  int fd_ = -1;
};

// A new name for a temporary file beside `path`: "<path>.tmp.<pid>.<n>", unique per process and
// call, so concurrent writers of one target never share a temporary file.
std::string temporary_path_for(const std::string& path);

// For a file name (no folder) made by temporary_path_for: the name of the file it was meant to
// become; "" for any other name. Whether its writer is gone is for the caller to know (a pid
// says nothing of a writer on another host of a shared file system): see FolderLock.
std::string temporary_target(const std::string& name);

}  // namespace xtrain
