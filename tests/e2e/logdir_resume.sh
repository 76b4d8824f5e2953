#!/usr/bin/env bash
# --logdir, --resume=auto, --evaluate and --pretrained as a user chains them: a run writes its
# metrics, checkpoints and summary; a resumed run goes on from the next epoch; evaluation and
# fine-tuning load the saved weights; check_accuracy reads the logdir.
set -euo pipefail
train="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

args=(--model=resnet20 --num_classes=10 --fake_data --image_size=16 --batch_size=4
      --test_set_batch_size=4 --num_steps=3 --num_test_steps=2 --log_steps=1 --lr=0.05
      --num_cores=2 --logdir="$dir/run")
"$train" "${args[@]}" --num_epochs=1 >"$dir/first.log"
for f in metrics.jsonl summary.json checkpoint-last.safetensors model_best.safetensors \
         checkpoint-epoch-1.safetensors; do
  [ -f "$dir/run/$f" ] || fail "no $f in the logdir"
done
[ "$(grep -c '"kind":"train"' "$dir/run/metrics.jsonl")" -eq 6 ] || fail "expected 6 train records"

"$train" "${args[@]}" --num_epochs=2 --resume=auto >"$dir/second.log"
grep -q "^Epoch 1 train begin" "$dir/second.log" && fail "the resumed run trained epoch 1 again"
grep -q "^Epoch 2 test end .*, Accuracy=" "$dir/second.log" || fail "the resumed run did not test epoch 2"
[ -f "$dir/run/checkpoint-epoch-2.safetensors" ] || fail "no epoch-2 checkpoint"
[ "$(grep -c '"kind":"eval"' "$dir/run/metrics.jsonl")" -eq 2 ] || fail "expected 2 eval records"

"$train" --model=resnet20 --num_classes=10 --fake_data --image_size=16 --test_set_batch_size=4 \
  --num_test_steps=2 --num_cores=1 --evaluate --pretrained="$dir/run/model_best.safetensors" \
  >"$dir/eval.log"
grep -qE "^Epoch 0 test end .*, Accuracy=[0-9.]+$" "$dir/eval.log" || fail "no evaluation line"
grep -q "Training" "$dir/eval.log" && fail "--evaluate trained"

# Fine-tuning on another class count keeps everything but fc, with a note.
"$train" --model=resnet20 --num_classes=7 --fake_data --image_size=16 --batch_size=4 \
  --num_steps=1 --num_test_steps=1 --num_epochs=1 --num_cores=1 \
  --pretrained="$dir/run/checkpoint-last.safetensors" >"$dir/finetune.log"
grep -q "^Note: fc.weight has another class count" "$dir/finetune.log" || fail "no fc note"

"$root/scripts/check_accuracy" "$dir/run" --min 50 || fail "check_accuracy: fake data reaches 100%"
echo "PASS"
