#!/usr/bin/env bash
# scripts/train_dist as a job starts: more processes than the machine's hardware threads are
# refused in one line unless --oversubscribe asks for them; a SIGTERM while mpirun still starts
# processes ends mpirun and them at once (mpirun alone would go on starting the rest), exit 143;
# a Ctrl-C while the processes start exits 130 with a line that says so, never as a process
# that died of the relayed signal. (tests/e2e/mpi.sh stops a job that trains.)
set -uo pipefail
train="$1"
dir="$(mktemp -d)"
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect_error.bash"
source "$(dirname "${BASH_SOURCE[0]}")/lib/train_dist.bash"
# The processes of this script's jobs: their --logdir names them (other tests start trainings).
job_processes() { pgrep -f -- "^$train .*--logdir=$dir/" | wc -l; }
trap 'rm -rf "$dir"' EXIT
run=(--model=resnet20 --fake_data --image_size=16 --batch_size=4 --num_cores=1 --num_epochs=1)

threads="$(nproc)"
refusal="--nproc_per_node=$((threads + 1)) is more processes than this machine's $threads"
refusal+=" hardware threads (pass --oversubscribe to share them)"
expect_error 2 "train_dist: error: $refusal" \
  train_dist --nproc_per_node=$((threads + 1)) -- "${run[@]}"
expect_error 2 "--nproc_per_node=10000 is more processes" \
  train_dist --nproc_per_node=10000 -- --fake_data
(train_dist --nproc_per_node=$((threads + 1)) --oversubscribe -- "${run[@]}" --num_steps=1 \
  --num_test_steps=1 --logdir="$dir/over") >"$dir/over.out" 2>"$dir/over.err" ||
  { cat "$dir/over.err"; fail "--oversubscribe: the job failed"; }
grep -q "^train_dist: mpirun .* --oversubscribe " "$dir/over.err" ||
  { cat "$dir/over.err"; fail "--oversubscribe is not passed to mpirun"; }
[ "$(grep -c '^Max Accuracy' "$dir/over.out")" -eq 1 ] ||
  fail "--oversubscribe: the job did not run"

# wait_for N: until N processes of this script's jobs run (up to 60 s).
wait_for() {
  for _ in $(seq 600); do
    [ "$(job_processes)" -ge "$1" ] && return
    sleep 0.1
  done
  fail "fewer than $1 processes started in 60 s"
}

# SIGTERM while mpirun starts 200 processes, a few at a time on this machine's threads.
train_dist_exec --nproc_per_node=200 --oversubscribe -- "${run[@]}" --logdir="$dir/many" \
  >"$dir/many.out" 2>"$dir/many.err" &
script=$!
wait_for 4
kill -TERM "$script"
start=$SECONDS
wait "$script"
code=$?
[ "$code" -eq 143 ] ||
  { cat "$dir/many.err"; fail "SIGTERM while starting: exit $code, expected 143"; }
[ $((SECONDS - start)) -le 10 ] ||
  fail "the launch took $((SECONDS - start)) s to end after SIGTERM"
[ "$(grep -v '^train_dist: mpirun ' "$dir/many.err")" = \
  "train_dist: interrupted (SIGTERM) while mpirun started the job's processes: ended them" ] ||
  { cat "$dir/many.err"; fail "SIGTERM while starting: not the one line expected"; }
sleep 1
[ "$(job_processes)" -eq 0 ] || fail "$(job_processes) processes of the stopped launch are left"

# Ctrl-C as the processes start, are in start-up, have just started training: exit 130 and a
# line that says so, whichever phase the signal meets; a job of one process too.
for job in 2:0 2:0.3 2:0.6 2:1 2:2 1:2; do
  processes="${job%:*}" delay="${job#*:}"
  logdir="$dir/int-$processes-$delay"
  train_dist_exec --nproc_per_node="$processes" --oversubscribe -- "${run[@]}" --num_steps=100000 \
    --logdir="$logdir" >"$dir/int.out" 2>"$dir/int.err" &
  script=$!
  for _ in $(seq 6000); do
    [ "$(pgrep -f -- "^$train .*--logdir=$logdir" | wc -l)" -ge "$processes" ] && break
    sleep 0.01
  done
  sleep "$delay"
  kill -INT "$script"
  wait "$script"
  code=$?
  said="$(grep -v '^train_dist: mpirun ' "$dir/int.err")"
  echo "Ctrl-C $delay s after $processes processes started: $said"
  case="Ctrl-C after $delay s ($processes processes)"
  [ "$code" -eq 130 ] || { cat "$dir/int.err"; fail "$case: exit $code, expected 130"; }
  grep -q 'interrupted (SIGINT)' <<<"$said" ||
    { cat "$dir/int.err"; fail "$case: no interrupted line"; }
  ! grep -qv -e 'interrupted (SIGINT)' -e '^train: stopping after the current step' <<<"$said" ||
    { cat "$dir/int.err"; fail "$case: other lines than the stop's"; }
done
echo "PASS"
