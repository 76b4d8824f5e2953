// A file that only grows by whole records: each append goes out in one write(2) at the end of
// the file (O_APPEND), and one cut short (a full disk) is truncated away again and thrown, so a
// reader never finds a record followed by a partial one. A killed process leaves every record
// it appended: nothing waits in a buffer of ours.
// Not here: what a record is (metrics_log.h, event_file.h).
#pragma once

#include <string>
#include <string_view>

namespace xtrain {

class AppendFile {
 public:
  enum class Mode {
    kOpenOrCreate,  // continue the file if it exists
    kCreateNew,     // throw if it exists
  };

  AppendFile(std::string path, Mode mode);
  ~AppendFile();
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;

  // Appends `record` whole, or throws with nothing of it left in the file (if the truncation
  // itself fails, the message says a partial record is left).
  void append(std::string_view record);

  const std::string& path() const { return path_; }
  int fd() const { return fd_; }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace xtrain
