#!/usr/bin/env bash
# One run per --logdir. A second run on a logdir in use is refused at start, with one line naming
# the first (host, PID), and writes nothing there; --resume=auto too. A run killed with SIGKILL
# leaves a lock that the next run on this host takes over. A lock left by a run on another host
# of a shared file system (here a UTS namespace with its own host name) cannot be checked: it is
# refused, naming the file to remove, and taken once that file is gone.
set -uo pipefail
train="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib/background.bash"  # $dir, fail, the kill of $pid
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect_error.bash"

run="$dir/run"
args=(--model=resnet20 --num_classes=10 --fake_data --image_size=16 --batch_size=4
      --test_set_batch_size=4 --num_steps=5 --num_test_steps=1 --log_steps=1 --num_cores=1
      --checkpoint_steps=1 --logdir="$run")
# A run that goes on until it is killed: in the background, pid in $pid, stopped (SIGSTOP, so it
# holds the lock without writing) once it has saved checkpoint-last. Runs "$@" before train.
start_long_run() {
  rm -f "$run/checkpoint-last.safetensors"
  "$@" "$train" "${args[@]}" --num_epochs=1000 >"$dir/long.out" 2>&1 &
  pid=$!
  for _ in $(seq 1200); do  # a hang guard of 120 s, not a timing goal
    [ -f "$run/checkpoint-last.safetensors" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$dir/long.out"; fail "the long run ended"; }
    sleep 0.1
  done
  kill -STOP "$pid"
}
kill_long_run() {
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null
  pid=""
}
event_files() { find "$run" -name 'events.out.tfevents.*' | sort; }

start_long_run
events="$(event_files)"
metrics="$(cat "$run/metrics.jsonl")"
# As many epochs as the long run: under load it may finish a few before it is stopped, and a
# resumed run with nothing left to do would end without looking at the lock.
for resume in "" --resume=auto; do
  expect_error 1 "train: error: --logdir $run is in use by the run of PID $pid on host $(hostname) (started " \
    "$train" "${args[@]}" --num_epochs=1000 $resume
done
grep -qE "started [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\); give this run another --logdir, or let that one end first$" \
  "$dir/expect.err" || fail "the refusal does not say when the run started and what to do"
[ "$(event_files)" = "$events" ] || fail "the refused run left an event file"
[ "$(cat "$run/metrics.jsonl")" = "$metrics" ] || fail "the refused run wrote metrics"
echo "ok: a second run is refused"

# SIGKILL: the kernel drops the lock; the next run here resumes without a word about it.
kill_long_run
evals="$(grep -c '"kind":"eval"' "$run/metrics.jsonl")"
"$train" "${args[@]}" --num_epochs=$((evals + 2)) --resume=auto >"$dir/resumed.out" 2>&1 ||
  { cat "$dir/resumed.out"; fail "the run after a SIGKILL could not take over the logdir"; }
grep -q "^Epoch $((evals + 2)) test end" "$dir/resumed.out" || fail "the resumed run did not finish"
[ ! -s "$run/run.lock" ] || fail "a run that ended left its record in run.lock"
echo "ok: the lock of a killed run is taken over on its host"

# Another host: a live run there is named as here; once killed, its record stays.
if ! unshare --uts true 2>/dev/null; then
  echo "skip: no UTS namespace here (unshare --uts needs root): another host's lock not tried"
  echo "PASS"
  exit 0
fi
start_long_run unshare --uts bash -c 'hostname node3 && exec "$@"' bash
expect_error 1 "train: error: --logdir $run is in use by the run of PID $pid on host node3 (started " \
  "$train" "${args[@]}" --num_epochs=1
holder="$pid"
kill_long_run
expect_error 1 "train: error: --logdir $run was locked by the run of PID $holder on host node3 (started " \
  "$train" "${args[@]}" --num_epochs=1000 --resume=auto  # not finished: see the first refusals
grep -qF "which cannot be checked from host $(hostname): if that run has ended, remove $run/run.lock and start again" \
  "$dir/expect.err" || fail "the refusal does not say which file to remove"
rm "$run/run.lock"
"$train" "${args[@]}" --num_epochs=$((evals + 3)) --resume=auto >"$dir/taken.out" 2>&1 ||
  { cat "$dir/taken.out"; fail "the logdir was not taken once run.lock was removed"; }
echo "ok: another host's lock is refused until its file is removed"
# A run preempted on another host (SIGTERM) frees the logdir as it stops: a requeue here goes on.
start_long_run unshare --uts bash -c 'hostname node3 && exec "$@"' bash
kill -TERM "$pid"
kill -CONT "$pid"
wait "$pid"
code=$?
pid=""
[ "$code" -eq 143 ] || { cat "$dir/long.out"; fail "the preempted run exited $code, expected 143"; }
[ ! -s "$run/run.lock" ] || fail "a run stopped by SIGTERM left its record in run.lock"
epoch="$(grep -oE '^Epoch [0-9]+ train begin' "$dir/long.out" | tail -n 1 | cut -d' ' -f2)"
"$train" "${args[@]}" --num_epochs="$epoch" --resume=auto >"$dir/requeued.out" 2>&1 ||
  { cat "$dir/requeued.out"; fail "the requeue after a preemption on another host failed"; }
echo "ok: a run preempted on another host leaves the logdir free"
echo "PASS"
