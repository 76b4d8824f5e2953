// run_reporting_errors: how every xtrain tool ends. Runs the tool's body and turns whatever it
// throws into one line on stderr ("train: error: ...", odd bytes of paths escaped as
// escape_bytes.h says) and exit code 1, never a stack trace.
#pragma once

#include <exception>
#include <iostream>
#include <new>
#include <string>

#include "lib/base/check.h"
#include "lib/base/escape_bytes.h"

namespace xtrain {

constexpr int kErrorExitCode = 1;
constexpr const char* kOutOfMemoryMessage = "out of memory (try a smaller --batch_size)";

// "tool: error: message\n" on stderr, in one write, so the lines of a job's processes never
// interleave.
inline void print_error_line(const char* tool, const std::string& message) {
  std::cerr << std::string(tool) + ": error: " + escape_bytes(message) + "\n";
}

template <typename Body>
int run_reporting_errors(const char* tool, Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    print_error_line(tool, kOutOfMemoryMessage);
  } catch (const std::exception& e) {  // xtrain::Error included: what() is the one-line message
    print_error_line(tool, e.what());
  }
  return kErrorExitCode;
}

}  // namespace xtrain
