// run_reporting_errors: how every xtrain tool ends. Runs the tool's body and turns whatever it
// throws into one line on stderr ("train: error: ...", odd bytes of paths escaped as
// escape_bytes.h says) and exit code 1, never a stack trace.
#pragma once

#include <exception>
#include <iostream>
#include <new>

#include "lib/base/check.h"
#include "lib/base/escape_bytes.h"

namespace xtrain {

constexpr int kErrorExitCode = 1;

template <typename Body>
int run_reporting_errors(const char* tool, Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    std::cerr << tool << ": error: out of memory (try a smaller --batch_size)\n";
  } catch (const std::exception& e) {  // xtrain::Error included: what() is the one-line message
    // One write, so the lines of a job's processes never interleave.
    std::cerr << std::string(tool) + ": error: " + escape_bytes(e.what()) + "\n";
  }
  return kErrorExitCode;
}

}  // namespace xtrain
