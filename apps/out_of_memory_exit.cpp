// A std::bad_alloc that nothing catches ends the tool as every error does: one line
// "TOOL: error: out of memory ..." and exit 1, not std::terminate's abort (exit 134). This covers
// what run_reporting_errors cannot: the libraries' own initializers, which allocate before main
// (OpenCV's image codecs do, and fail under a small `ulimit -v`), and an allocation that escapes
// a thread's body. It is installed from .preinit_array, which runs before any library's
// initializer; each tool lists this file among its sources, as a static library's object that
// nothing refers to would be left out of the link.
#include <unistd.h>

#include <cstring>
#include <exception>
#include <new>

#include "apps/run_reporting_errors.h"

namespace xtrain {
namespace {

const char* tool_name = "xtrain";
std::terminate_handler default_terminate = nullptr;

// The line, put together without allocating, and written at once so a job's lines stay whole.
void write_out_of_memory_line() {
  static char line[256];
  const char* parts[] = {tool_name, ": error: ", kOutOfMemoryMessage, "\n"};
  size_t length = 0;
  for (const char* part : parts) {
    const size_t n = std::min(std::strlen(part), sizeof(line) - length);
    std::memcpy(line + length, part, n);
    length += n;
  }
  (void)!write(STDERR_FILENO, line, length);
}

void exit_on_uncaught_bad_alloc() {
  try {
    if (std::current_exception()) throw;
  } catch (const std::bad_alloc&) {
    write_out_of_memory_line();
    _exit(kErrorExitCode);  // no destructors: other threads may still use what they would free
  } catch (...) {
    default_terminate();  // inside the handler, so that it can still name the exception
  }
  default_terminate();
}

void install(int argc, char** argv, char** /*envp*/) {
  if (argc > 0 && argv[0] != nullptr) {
    const char* slash = std::strrchr(argv[0], '/');
    tool_name = slash != nullptr ? slash + 1 : argv[0];
  }
  default_terminate = std::set_terminate(exit_on_uncaught_bad_alloc);
}

__attribute__((section(".preinit_array"), used)) void (*const install_at_preinit)(int, char**,
                                                                                  char**) = install;

}  // namespace
}  // namespace xtrain
