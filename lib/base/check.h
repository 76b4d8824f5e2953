// Errors: xtrain::Error and XTRAIN_CHECK, the one way library code reports bad input or a broken
// invariant. Library code throws; apps/ catch, print one line and exit non-zero.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace xtrain {

// An error a user can cause or a check that failed. what() is the one-line message for users;
// where() is the source location, for developers.
class Error : public std::runtime_error {
 public:
  Error(std::string message, std::string where)
      : std::runtime_error(std::move(message)), where_(std::move(where)) {}
  const std::string& where() const { return where_; }

 private:
  std::string where_;
};

[[noreturn]] inline void throw_error(const char* file, int line, std::string message) {
  throw Error(std::move(message), fmt::format("{}:{}", file, line));
}

}  // namespace xtrain

// XTRAIN_CHECK(condition, "fmt format {}", args...): throws xtrain::Error when condition is false.
#define XTRAIN_CHECK(condition, ...)                                                       \
  do {                                                                                     \
    if (!(condition)) ::xtrain::throw_error(__FILE__, __LINE__, fmt::format(__VA_ARGS__)); \
  } while (0)
