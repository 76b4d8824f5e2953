#!/usr/bin/env bash
# The driver on several emulated cores, as a user runs it: every core prints its own training
# and test lines, the epoch lines print once, a rerun repeats every loss, and Ctrl-C stops all
# cores after the current step with exit code 130.
set -euo pipefail
train="$1"
out="$(mktemp)"
again="$(mktemp)"
trap 'rm -f "$out" "$again"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

args=(--model=resnet20 --num_classes=10 --fake_data --image_size=16 --batch_size=4
      --test_set_batch_size=4 --num_epochs=2 --num_steps=4 --log_steps=2 --num_test_steps=2
      --lr=0.05 --num_cores=3 --metrics_debug)
"$train" "${args[@]}" >"$out"
cat "$out"

count() { grep -cE "$1" "$out" || true; }
for core in 0 1 2; do
  [ "$(count "^\| Training Device=xla:$core/$core ")" -eq 4 ] || fail "xla:$core: expected 4 training lines"
  [ "$(count "^\| Test Device=xla:$core/$core ")" -eq 2 ] || fail "xla:$core: expected 2 test lines"
done
[ "$(count '^Epoch [12] train begin ')" -eq 2 ] || fail "train begin must print once per epoch"
[ "$(count '^Epoch [12] test end .*, Accuracy=')" -eq 2 ] || fail "test end must print once per epoch"
[ "$(count '^Max Accuracy: 100\.00%$')" -eq 1 ] || fail "expected one Max Accuracy line"
for name in CompileTime ExecuteTime AllReduceTime OptimizerTime DataWaitTime; do
  [ "$(count "^Metric: $name$")" -eq 2 ] || fail "metrics report lacks $name"
done
grep -qE '^  Percentiles: 1%=.*; 99%=' "$out" || fail "no percentiles line"
[ "$(count '^Counter: Steps$')" -eq 2 ] || fail "no Steps counter"
[ "$(count '^Metric: AllReduceAcrossProcessesTime$')" -eq 0 ] || fail "one process has no cross-process time"

# The same flags give the same losses, core by core (rates and times differ).
"$train" "${args[@]}" >"$again"
source "$(dirname "${BASH_SOURCE[0]}")/lib/losses.bash"
[ "$(losses "$out")" = "$(losses "$again")" ] || fail "a rerun gave different losses"

# Ctrl-C: every core stops after its current step; the process says so and exits 130.
"$train" --model=resnet20 --num_classes=10 --fake_data --image_size=16 --batch_size=4 \
  --num_epochs=1 --log_steps=1 --num_cores=2 >"$out" 2>"$again" &
pid=$!
for _ in $(seq 100); do
  grep -q "Training Device" "$out" && break
  sleep 0.1
done
kill -INT "$pid"
set +e
wait "$pid"
code=$?
set -e
[ "$code" -eq 130 ] || { cat "$again"; fail "after SIGINT: exit $code, expected 130"; }
grep -q "interrupted" "$again" || fail "no interrupted message"
# A diverging core (a non-finite loss) stops all four cores: one line naming the core, exit 1.
set +e
"$train" --model=resnet20 --num_classes=10 --fake_data --image_size=16 --batch_size=4 \
  --num_epochs=1 --num_steps=50 --num_cores=4 --lr=1e30 >"$out" 2>"$again"
code=$?
set -e
[ "$code" -eq 1 ] || fail "diverging run: exit $code, expected 1"
[ "$(wc -l <"$again")" -eq 1 ] || { cat "$again"; fail "diverging run: expected one error line"; }
grep -qE '^train: error: xla:[0-3]: the loss is -?nan at epoch 1 step [0-9]+$' "$again" ||
  { cat "$again"; fail "diverging run: the error does not name the core and the loss"; }
echo "PASS"
