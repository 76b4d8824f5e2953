// Relayed stops: in a job, scripts/train_dist relays a SIGTERM as SIGUSR1 and a Ctrl-C (SIGINT)
// as SIGUSR2. Open MPI's mpirun forwards those to every process, but kills the processes a second
// after a SIGINT or SIGTERM of its own, before a step can end: one it was sent, or its own when
// it ends the job because a process or machine of it was lost.
// Not here: the graceful stop once start-up is done (train.cpp's handle_stop_signals).
#pragma once

namespace xtrain {

// The stop a signal stands for: SIGTERM for SIGUSR1, SIGINT for SIGUSR2, else the signal itself.
int stop_cause(int signal);

// From the first line of main until train handles stop signals: a relayed stop ends the process
// at once with 143 or 130, as a SIGTERM or SIGINT ends a process then, instead of a death by
// SIGUSR1 or SIGUSR2 (the default, exit 138 or 140). The job's first process says so in a line.
void end_at_once_on_relayed_stops();

}  // namespace xtrain
