#include "apps/relayed_stop_signals.h"

#include <unistd.h>

#include <csignal>

#include "lib/parallel/process_group.h"

namespace xtrain {
namespace {

bool says_it = true;  // set before the handler is installed, read only by it

// Async-signal-safe: write and _exit only.
extern "C" void end_at_once(int signal) {
  static constexpr char kInt[] = "train: interrupted (SIGINT) while starting: ended at once\n";
  static constexpr char kTerm[] = "train: interrupted (SIGTERM) while starting: ended at once\n";
  const bool term = stop_cause(signal) == SIGTERM;
  if (says_it) {
    const ssize_t written =
        write(STDERR_FILENO, term ? kTerm : kInt, term ? sizeof(kTerm) - 1 : sizeof(kInt) - 1);
    (void)written;  // nothing to do: the process ends either way
  }
  _exit(128 + stop_cause(signal));
}

}  // namespace

int stop_cause(int signal) {
  if (signal == SIGUSR1) return SIGTERM;
  return signal == SIGUSR2 ? SIGINT : signal;
}

void end_at_once_on_relayed_stops() {
  says_it = ProcessGroup::first_in_environment();
  struct sigaction action {};
  action.sa_handler = end_at_once;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGUSR1, SIGUSR2}) sigaction(signal, &action, nullptr);
}

}  // namespace xtrain
