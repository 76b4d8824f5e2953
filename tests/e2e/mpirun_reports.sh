#!/usr/bin/env bash
# scripts/mpirun_errors, which train_dist passes mpirun's standard error through, on Open MPI
# 4.1's reports as recorded: a lost machine (its link taken down, docs/SCALING.md; no test can do
# that without root and network namespaces) and a killed process are said in one line naming
# them, the machine with the ranks --report-bindings placed there (when it did); the reports that
# repeat a process's own error go, and so do the bindings; lines of the processes and reports it
# does not know pass as they are, in order. (tests/e2e/mpi.sh kills a process of a real job.)
# An error line of train said by several processes (each refused the same flag) is said once,
# and a process that died of train_dist's relayed stop (SIGUSR1, SIGUSR2) is said as a stop.
# Once as many bindings as the job has processes were reported, it creates the file train_dist
# gave it, to say that every process has started.
set -euo pipefail
filter="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/mpirun_errors"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
dashes="--------------------------------------------------------------------------"
# A report the filter does not know, then one cut short (mpirun killed while writing it).
passed_as_it_is="$dashes
ORTE was unable to reliably start one or more daemons.
This usually is caused by:
$dashes
$dashes
A report cut short"

cat >"$dir/stderr" <<REPORTS
[vm:12510] MCW rank 1 bound to socket 0[core 1[hwt 0]]: [./B]
[vm:12510] MCW rank 0 bound to socket 0[core 0[hwt 0]]: [B/.]
[fakehost2:4242] MCW rank 3 bound to socket 0[core 1[hwt 0]]: [./B]
[fakehost2:4242] MCW rank 2 bound to socket 0[core 0[hwt 0]]: [B/.]
$dashes
ORTE has lost communication with a remote daemon.

  HNP daemon   : [[3920,0],0] on node vm
  Remote daemon: [[3920,0],1] on node fakehost2

This is usually due to either a failure of the TCP network
connection to the node, or possibly an internal failure of
the daemon itself. We cannot recover from this failure, and
therefore will terminate the job.
$dashes
$dashes
ORTE has lost communication with a remote daemon.

  HNP daemon   : [[3920,0],0] on node vm
  Remote daemon: [[3920,0],2] on node node9

This is usually due to either a failure of the TCP network
$dashes
train: the job's launcher asked for a stop
mpirun: Forwarding signal 12 to job
$dashes
Primary job  terminated normally, but 1 process returned
a non-zero exit code. Per user-direction, the job has been aborted.
$dashes
[vm:25125] Read -1, expected 668096, errno = 3
$dashes
mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed).
$dashes
$dashes
mpirun noticed that process rank 6 with PID 0 on node vm exited on signal 12 (User defined signal 2).
$dashes
$dashes
mpirun noticed that process rank 2 with PID 0 on node vm exited on signal 10 (User defined signal 1).
$dashes
train: error: --lr: expected a finite number >= 0, got '-1'
train: error: --lr: expected a finite number >= 0, got '-1'
train: error: --seed: expected an integer, got 'x'
train: error: --lr: expected a finite number >= 0, got '-1'
train: error: rank 1 xla:1: the loss is -nan at epoch 1 step 2
$dashes
MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD
with errorcode 1.

NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes.
You may or may not see output from other processes, depending on
exactly when Open MPI kills them.
$dashes
[vm:23836] 1 more process has sent help message help-mpi-api.txt / mpi-abort
[vm:23836] Set MCA parameter "orte_base_help_aggregate" to 0 to see all help / error messages
[vm:23702] [[12392,0],0] ORTE_ERROR_LOG: Out of resource in file ../../../orte/util/show_help.c at line 501
train: error: rank 1: --resume: /tmp/missing: no such file
$dashes
mpirun detected that one or more processes exited with non-zero status, thus causing
the job to be terminated. The first process to do so was:

  Process name: [[12677,1],1]
  Exit code:    1
$dashes
$passed_as_it_is
REPORTS

cat >"$dir/expected" <<EXPECTED
train_dist: error: lost the machine fakehost2 (ranks 2, 3): its Open MPI daemon stopped answering (network or power), and its processes with it; mpirun ended the job
train_dist: error: lost the machine node9: its Open MPI daemon stopped answering (network or power), and its processes with it; mpirun ended the job
train: the job's launcher asked for a stop
train_dist: error: rank 1 on vm died of signal 9 (Killed); mpirun ended the job
train_dist: interrupted (SIGINT): rank 6 on vm was starting and ended at once; mpirun ended the job
train_dist: interrupted (SIGTERM): rank 2 on vm was starting and ended at once; mpirun ended the job
train: error: --lr: expected a finite number >= 0, got '-1'
train: error: --seed: expected an integer, got 'x'
train: error: rank 1 xla:1: the loss is -nan at epoch 1 step 2
train: error: rank 1: --resume: /tmp/missing: no such file
$passed_as_it_is
EXPECTED

"$filter" 4 "$dir/started" <"$dir/stderr" >"$dir/said" || fail "mpirun_errors exited $?"
diff "$dir/expected" "$dir/said" || fail "mpirun_errors said the reports otherwise (diff above)"
# The bindings of every process reported: the job has started, and train_dist may relay a stop.
[ -e "$dir/started" ] || fail "4 bindings of a job of 4 processes, and no started file"
"$filter" 5 "$dir/not_started" <"$dir/stderr" >/dev/null
[ ! -e "$dir/not_started" ] || fail "4 bindings of a job of 5 processes made the started file"
echo "PASS"
