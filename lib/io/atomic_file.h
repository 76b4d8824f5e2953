// AtomicFile: writes a file so that readers only ever see the old content or the complete new
// one. Bytes go to a temporary file in the same folder; commit() flushes and fsyncs it, then
// renames it over the target. Until then the target is untouched, and a writer destroyed
// without commit() (an exception, a full disk) removes its temporary file.
// Not here: what the bytes are (safetensors.h, metrics_log.h).
#pragma once

#include <cstddef>
#include <string>

namespace xtrain {

class AtomicFile {
 public:
  // Creates the temporary file next to `path`; throws xtrain::Error if the folder is not writable.
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

}  // namespace xtrain
