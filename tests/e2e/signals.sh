#!/usr/bin/env bash
# Stops from outside, as Ctrl-C and schedulers (Slurm, Kubernetes: SIGTERM) send them. A stop
# ends the test pass within one batch (exit 130, no accuracy logged); SIGTERM on a 2-core run
# saves checkpoint-last (exit 143) and --resume=auto ends exactly where an uninterrupted run
# ends; a second signal ends the process at once, without the graceful stop's message or files.
set -uo pipefail
train="$1"
dir="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# start NAME ARGS...: train in the background, output in $dir/NAME.out and .err, pid in $pid.
start() {
  local name="$1"
  shift
  "$train" "$@" >"$dir/$name.out" 2>"$dir/$name.err" &
  pid=$!
}
# wait_for PATTERN FILE: until a line of FILE matches (a hang guard of 120 s, not a timing goal).
wait_for() {
  for _ in $(seq 1200); do
    grep -qE "$1" "$2" && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$2"; fail "train ended before printing '$1'"; }
    sleep 0.1
  done
  fail "no '$1' in $2 after 120 s"
}
# finish NAME EXPECTED_EXIT: waits for $pid (a hang guard of 120 s) and checks its exit code.
finish() {
  local name="$1" expected="$2"
  for _ in $(seq 1200); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && { kill -KILL "$pid"; fail "$name: still running 120 s after the stop"; }
  wait "$pid"
  local code=$?
  pid=""
  [ "$code" -eq "$expected" ] ||
    { tail -n 3 "$dir/$name.out"; cat "$dir/$name.err"; fail "$name: exit $code, expected $expected"; }
}

# Ctrl-C during a test pass of 12,500 batches: it ends within a batch, logs no accuracy.
start test_pass --model=resnet20 --num_classes=10 --fake_data --image_size=28 --batch_size=4 \
  --test_set_batch_size=4 --num_epochs=1 --num_steps=1 --log_steps=1 --num_cores=1
wait_for '^\| Test Device=xla:0/0 Step=2 ' "$dir/test_pass.out"
kill -INT "$pid"
finish test_pass 130
grep -q "Accuracy" "$dir/test_pass.out" && fail "the interrupted test pass logged an accuracy"
grep -qx "train: interrupted (SIGINT): stopped every core after the current step" \
  "$dir/test_pass.err" || { cat "$dir/test_pass.err"; fail "no interrupted (SIGINT) line"; }
echo "ok: SIGINT in the test pass after $(grep -c '^| Test' "$dir/test_pass.out") of 12500 batches"

# SIGTERM on 2 cores with --logdir, then --resume=auto: the same losses and final weights as a
# run never stopped.
args=(--model=resnet20 --num_classes=10 --fake_data --image_size=16 --batch_size=4
      --test_set_batch_size=4 --num_epochs=2 --num_steps=100 --num_test_steps=2 --log_steps=1
      --lr=0.05 --num_cores=2)
"$train" "${args[@]}" --logdir="$dir/straight" >"$dir/straight.out" 2>&1 ||
  { tail -n 5 "$dir/straight.out"; fail "the uninterrupted run failed"; }
start stopped "${args[@]}" --logdir="$dir/stopped"
wait_for '^\| Training Device=xla:1/1 Epoch=1 Step=5 ' "$dir/stopped.out"
kill -TERM "$pid"
finish stopped 143
grep -qx "train: interrupted (SIGTERM): stopped every core after the current step" \
  "$dir/stopped.err" || { cat "$dir/stopped.err"; fail "no interrupted (SIGTERM) line"; }
[ -f "$dir/stopped/checkpoint-last.safetensors" ] || fail "SIGTERM saved no checkpoint-last"
steps="$(grep -c '"kind":"train"' "$dir/stopped/metrics.jsonl")"
"$train" "${args[@]}" --logdir="$dir/stopped" --resume=auto >"$dir/resumed.out" 2>&1 ||
  { tail -n 5 "$dir/resumed.out"; fail "--resume=auto failed"; }
losses() { jq -c 'select(.kind == "train") | [.epoch, .step, .core, .loss]' "$1" | sort; }
[ "$(losses "$dir/stopped/metrics.jsonl")" = "$(losses "$dir/straight/metrics.jsonl")" ] ||
  fail "the stopped and resumed run's losses differ from the uninterrupted run's"
# The tensors of a safetensors file: what follows its 8-byte header size and JSON header.
tensors() { tail -c +$(($(od -An -t u8 -N8 "$1" | tr -d ' ') + 9)) "$1" | md5sum; }
[ "$(tensors "$dir/stopped/checkpoint-last.safetensors")" = \
  "$(tensors "$dir/straight/checkpoint-last.safetensors")" ] ||
  fail "the resumed run's final weights differ from the uninterrupted run's"
echo "ok: SIGTERM after $steps of 400 training lines, resumed to the same losses and weights"

# A second signal while the first waits for a long step (resnet50 at 224) ends it at once: no
# graceful message, no checkpoint, the second signal's exit code.
for signal in INT TERM; do
  start "twice_$signal" --model=resnet50 --num_classes=10 --fake_data --batch_size=8 \
    --num_epochs=1 --log_steps=1 --num_cores=1 --logdir="$dir/twice_$signal"
  wait_for '^\| Training Device=xla:0/0 Epoch=1 Step=0 ' "$dir/twice_$signal.out"
  kill -"$signal" "$pid"
  wait_for '^train: stopping after the current step' "$dir/twice_$signal.err"
  kill -"$signal" "$pid"
  finish "twice_$signal" "$([ "$signal" = INT ] && echo 130 || echo 143)"
  grep -q "interrupted" "$dir/twice_$signal.err" &&
    fail "SIG$signal twice: the first stop finished before the second signal ended the run"
  # metrics.jsonl and the event file are appended as the run goes, run.lock holds the logdir;
  # nothing else was written.
  [ "$(ls "$dir/twice_$signal" | grep -v '^events\.out\.tfevents\.')" = "$(printf 'metrics.jsonl\nrun.lock')" ] ||
    { ls "$dir/twice_$signal"; fail "SIG$signal twice: files besides metrics.jsonl and the events"; }
  echo "ok: SIG$signal twice: exit at once"
done
echo "PASS"
