#!/usr/bin/env bash
# scripts/check_accuracy on hand-written console logs and logdirs, then on a tiny real run:
# exit 0 when the max top-1 reaches the bar, 1 below it, 2 with one line on stderr for errors.
set -uo pipefail
train="$1"
check="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/check_accuracy"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

expect() {  # EXIT_CODE STDOUT_OR_STDERR_PART ARGS...
  local code="$1" part="$2"
  shift 2
  "$check" "$@" >"$dir/out" 2>"$dir/err"
  local got=$?
  [ "$got" -eq "$code" ] || { cat "$dir/out" "$dir/err"; fail "'$*' exited $got, expected $code"; }
  local lines
  lines="$(cat "$dir/out" "$dir/err" | wc -l)"
  [ "$lines" -eq 1 ] || { cat "$dir/out" "$dir/err"; fail "'$*': expected one line"; }
  grep -qF -- "$part" "$dir/out" "$dir/err" || { cat "$dir/out" "$dir/err"; fail "'$*': no '$part'"; }
  echo "ok ($got): $* -> $(cat "$dir/out" "$dir/err")"
}

cat >"$dir/console.log" <<'LOG'
Model resnet50: 25,557,032 parameters, 4.11 GMACs per image at 224x224
Epoch 1 train begin 10:00:00
| Training Device=xla:0/0 Epoch=1 Step=0 Loss=6.90625 Rate=10.00 GlobalRate=10.00 Time=10:00:01
Epoch 1 train end 10:30:00
Epoch 1 test end 10:31:00, Accuracy=12.50
Epoch 2 test end 11:01:00, Accuracy=71.25
Epoch 3 test end 11:31:00, Accuracy=70.00
Max Accuracy: 71.25%
LOG
expect 0 "max top-1 71.25% (epoch 2, 3 evaluations) reaches 70.00%: PASS" "$dir/console.log" --min 70
expect 0 "PASS" "$dir/console.log" --min 71.25
expect 1 "max top-1 71.25% (epoch 2, 3 evaluations) is below 71.30%: FAIL" "$dir/console.log" --min 71.3

mkdir "$dir/logdir"
cat >"$dir/logdir/metrics.jsonl" <<'LOG'
{"kind":"train","epoch":1,"step":0,"core":0,"loss":6.90625,"lr":0.1,"rate":10.0,"global_rate":10.0,"time":"10:00:01"}
{"kind":"eval","epoch":1,"top1":55.5,"top5":80.0,"skipped_images":0}

{"kind":"eval","epoch":2,"top1":76.25,"top5":93.0,"skipped_images":0}
LOG
printf '{"kind":"eval","epoch":3,"to' >>"$dir/logdir/metrics.jsonl"  # cut off by a crash
expect 0 "max top-1 76.25% (epoch 2, 2 evaluations) reaches 76.00%: PASS" "$dir/logdir" --min 76
expect 1 "FAIL" "$dir/logdir/metrics.jsonl" --min 80

# A diverged evaluation (non-finite outputs) scores 0, whatever its accuracy line says.
cat >"$dir/diverged.log" <<'LOG'
Epoch 1 test end 10:31:00, Accuracy=12.50
Epoch 2 test end 11:01:00, Accuracy=73.00
Epoch 2 test top-5 Accuracy: 90.00%
Epoch 2 test: 27 of 100 samples had non-finite outputs (counted wrong)
LOG
expect 1 "max top-1 12.50% (epoch 1, 2 evaluations) is below 50.00%: FAIL" "$dir/diverged.log" --min 50
# ... and so does one of weights that are not finite, whose outputs may be.
cat >"$dir/diverged_weights.log" <<'LOG'
Epoch 1 test end 10:31:00, Accuracy=12.50
Epoch 2 test end 11:01:00, Accuracy=0.00
Epoch 2 test top-5 Accuracy: 0.00% of 100 samples
Epoch 2 test: the weights or BatchNorm statistics are not finite: all 100 samples counted as non-finite (wrong)
Epoch 3 test end 11:31:00, Accuracy=73.00
Epoch 3 test: the weights or BatchNorm statistics are not finite: all 100 samples counted as non-finite (wrong)
LOG
expect 1 "max top-1 12.50% (epoch 1, 3 evaluations) is below 50.00%: FAIL" "$dir/diverged_weights.log" --min 50
printf '%s\n' '{"kind":"eval","epoch":1,"top1":10.0,"top5":50.0,"skipped_images":0,"nonfinite":0}' \
  '{"kind":"eval","epoch":2,"top1":73.0,"top5":90.0,"skipped_images":0,"nonfinite":27}' \
  >"$dir/diverged.jsonl"
expect 1 "max top-1 10.00% (epoch 1, 2 evaluations) is below 50.00%: FAIL" "$dir/diverged.jsonl" --min 50

# Errors: exit 2, one line on stderr.
printf 'Epoch 1 train begin 10:00:00\n' >"$dir/no_accuracy.log"
expect 2 "no accuracy logged in $dir/no_accuracy.log" "$dir/no_accuracy.log" --min 1
expect 2 "cannot read $dir/missing.log" "$dir/missing.log" --min 1
mkdir "$dir/empty_logdir"
expect 2 "folder without metrics.jsonl" "$dir/empty_logdir" --min 1
printf '{"kind":"eval","epoch":1,"top1":50}\nnot json\n{"kind":"eval","epoch":2,"top1":60}\n' \
  >"$dir/bad.jsonl"
expect 2 "$dir/bad.jsonl:2: not JSON (Expecting value at column 1)" "$dir/bad.jsonl" --min 1
# A line cut off (a full disk, by an older xtrain) and followed by more: where, and why.
printf '{"kind":"eval","epoch":1,"top1":50}\n{"kind":"eval","ep{"kind":"eval","epoch":2,"top1":60}\n' \
  >"$dir/cut.jsonl"
expect 2 "$dir/cut.jsonl:2: not JSON (Expecting ':' delimiter at column 21)" "$dir/cut.jsonl" --min 1
expect 2 "required: --min" "$dir/console.log"
expect 2 "invalid float value: 'high'" "$dir/console.log" --min high
expect 2 "not a percentage" "$dir/console.log" --min 101

# A tiny real run: its console log is what users check.
"$train" --model=resnet20 --num_classes=10 --fake_data --image_size=32 --batch_size=4 \
  --test_set_batch_size=4 --num_epochs=1 --num_steps=2 --log_steps=1 --num_test_steps=1 \
  >"$dir/run.log" 2>&1 || { cat "$dir/run.log"; fail "train failed"; }
expect 0 "(epoch 1, 1 evaluation) reaches 0.00%: PASS" "$dir/run.log" --min 0
echo "PASS"
