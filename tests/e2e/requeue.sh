#!/usr/bin/env bash
# What a requeue loop (`train --resume=auto` run again until it exits 0) meets: a first try with
# no checkpoint yet starts afresh, a try stopped in its test pass evaluates that epoch first when
# resumed, and a try after the run ended does nothing and leaves the logdir as it was. A try
# with another --model names both models.
set -uo pipefail
train="$1"
source "$(dirname "${BASH_SOURCE[0]}")/lib/background.bash"
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect_error.bash"

# One core, 2 steps, a test pass of 1000 batches logged one by one: long enough to stop in.
run=(--model=resnet20 --num_classes=10 --fake_data --image_size=16 --batch_size=4
     --test_set_batch_size=4 --num_epochs=1 --num_steps=2 --num_test_steps=1000 --log_steps=1
     --num_cores=1 --logdir="$dir/run" --resume=auto --target_accuracy=50)

start first "${run[@]}"
wait_for '^\| Test Device=xla:0/0 Step=2 ' "$dir/first.out"
kill -INT "$pid"
finish first 130
grep -qF "Note: --resume=auto: no checkpoint in --logdir $dir/run yet: starting from scratch" \
  "$dir/first.out" || { head -n 3 "$dir/first.out"; fail "no fresh-start note"; }
[ -f "$dir/run/checkpoint-last.safetensors" ] || fail "the stop in the test pass saved nothing"
echo "ok: --resume=auto with no checkpoint yet starts afresh"

"$train" "${run[@]}" >"$dir/second.out" 2>"$dir/second.err" ||
  { tail -n 5 "$dir/second.out"; cat "$dir/second.err"; fail "the resumed run failed"; }
grep -q "train begin" "$dir/second.out" && fail "the resumed run trained again"
grep -q "^Epoch 1 test end .*, Accuracy=100.00$" "$dir/second.out" ||
  { cat "$dir/second.out"; fail "the resumed run did not evaluate epoch 1"; }
grep -qx "Max Accuracy: 100.00%" "$dir/second.out" || fail "no Max Accuracy of the evaluation"
for file in model_best.safetensors checkpoint-epoch-1.safetensors summary.json; do
  [ -f "$dir/run/$file" ] || fail "the resumed evaluation wrote no $file"
done
echo "ok: a run stopped in its test pass evaluates that epoch when resumed"

summary="$(md5sum <"$dir/run/summary.json")"
metrics="$(md5sum <"$dir/run/metrics.jsonl")"
files="$(ls "$dir/run")"
sleep 1  # a new TensorBoard event file would have another name
"$train" "${run[@]}" >"$dir/third.out" 2>"$dir/third.err" ||
  { cat "$dir/third.out" "$dir/third.err"; fail "the try after the end failed"; }
[ "$(cat "$dir/third.out")" = "Nothing to do: every epoch of --num_epochs=1 is trained and tested (raise it to train on). Max Accuracy: 100.00%" ] ||
  { cat "$dir/third.out"; fail "the try after the end did not say there is nothing to do"; }
[ ! -s "$dir/third.err" ] || { cat "$dir/third.err"; fail "the try after the end wrote to stderr"; }
[ "$(md5sum <"$dir/run/summary.json")" = "$summary" ] || fail "summary.json was rewritten"
[ "$(md5sum <"$dir/run/metrics.jsonl")" = "$metrics" ] || fail "metrics.jsonl was appended to"
[ "$(ls "$dir/run")" = "$files" ] || { ls "$dir/run"; fail "the try after the end wrote files"; }
echo "ok: a try after the run ended has nothing to do and leaves the logdir as it was"

expect_error 1 "train: error: --resume: $dir/run/checkpoint-last.safetensors holds a resnet20, not a resnet32" \
  "$train" "${run[@]}" --model=resnet32
echo "PASS"
