#!/usr/bin/env bash
# Stops from outside, as Ctrl-C and schedulers (Slurm, Kubernetes: SIGTERM) send them. A stop
# ends the test pass within one batch (exit 130, no accuracy logged); SIGTERM on a 2-core run
# saves checkpoint-last (exit 143) and --resume=auto ends exactly where an uninterrupted run
# ends; a second signal ends the process at once, without the graceful stop's message or files;
# SIGHUP stops as SIGTERM does, two signals at once are one stop, and a closed stdout is no stop.
set -uo pipefail
train="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib/background.bash"

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

# A second signal, a second or more after the first, while the first waits for a long step
# (resnet50 at 224) ends it at once: no graceful message, no checkpoint, the second signal's exit
# code.
for signal in INT TERM; do
  start "twice_$signal" --model=resnet50 --num_classes=10 --fake_data --batch_size=8 \
    --num_epochs=1 --log_steps=1 --num_cores=1 --logdir="$dir/twice_$signal"
  wait_for '^\| Training Device=xla:0/0 Epoch=1 Step=0 ' "$dir/twice_$signal.out"
  kill -"$signal" "$pid"
  wait_for '^train: stopping after the current step' "$dir/twice_$signal.err"
  sleep 1.2  # signals closer than a second to the first are the same stop (below)
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

# The other stops a run meets, each on one core, stopped after step 2 of 100: SIGHUP (a closed
# terminal) as SIGTERM; two SIGTERMs at once (`timeout` signals its child and the child's process
# group) as one stop. Each saves checkpoint-last and says so.
quick=(--model=resnet20 --num_classes=10 --fake_data --image_size=16 --batch_size=4
       --num_epochs=1 --num_steps=100 --num_test_steps=1 --log_steps=1 --num_cores=1)
for stop in HUP TERM_TWICE; do
  start "$stop" "${quick[@]}" --logdir="$dir/$stop"
  wait_for '^\| Training Device=xla:0/0 Epoch=1 Step=2 ' "$dir/$stop.out"
  if [ "$stop" = HUP ]; then
    kill -HUP "$pid"
    finish "$stop" 129
  else
    kill -TERM "$pid"
    kill -TERM "$pid"
    finish "$stop" 143
  fi
  grep -qx "train: interrupted (SIG${stop%_TWICE}): stopped every core after the current step" \
    "$dir/$stop.err" || { cat "$dir/$stop.err"; fail "$stop: no interrupted line"; }
  [ -f "$dir/$stop/checkpoint-last.safetensors" ] || fail "$stop: no checkpoint-last"
  echo "ok: SIG$stop stops after the current step and saves checkpoint-last"
done

# A reader that closes stdout (`train | head -1`) leaves the run going to its end.
"$train" "${quick[@]}" --num_steps=20 --logdir="$dir/pipe" | head -n 1 >/dev/null
codes=("${PIPESTATUS[@]}")
[ "${codes[0]}" -eq 0 ] || fail "train | head -1: train exited ${codes[0]}"
[ -f "$dir/pipe/summary.json" ] || fail "train | head -1: the run did not reach its end"
[ "$(grep -c '"kind":"train"' "$dir/pipe/metrics.jsonl")" -eq 20 ] ||
  fail "train | head -1: not every step was logged"
echo "ok: a closed stdout does not end the run"
echo "PASS"
