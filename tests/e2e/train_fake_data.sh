#!/usr/bin/env bash
# The driver on fake data, as a user runs it: every line must match test_train_imagenet.py's
# formats (and xtrain's Memory and Run lines before the first step), in order, and the model
# must learn the all-zero/label-0 task (100% accuracy).
set -euo pipefail
train="$1"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT

"$train" --model=resnet20 --num_classes=10 --fake_data --image_size=32 --batch_size=8 \
  --test_set_batch_size=8 --num_epochs=2 --num_steps=6 --log_steps=2 --num_test_steps=3 \
  --lr=0.05 --num_cores=1 >"$out"
cat "$out"

fail() { echo "FAIL: $*" >&2; exit 1; }
t='[0-2][0-9]:[0-5][0-9]:[0-5][0-9]'
expected=(
  "^Model resnet20: 269,722 parameters, 0\.04 GMACs per image at 32x32, float32$"
  "^Memory: 1 core x [0-9]+ MB \(batch 8, float32\) = [0-9]+ MB of [0-9.]+ [MG]B available$"
  "^Run: 2 epochs x 6 steps x 1 core x 8 images \(global batch 8\), test 3 batches per core per epoch$"
)
for epoch in 1 2; do
  expected+=("^Epoch $epoch train begin $t$")
  for step in 0 2 4; do
    expected+=("^\| Training Device=xla:0/0 Epoch=$epoch Step=$step Loss=[0-9]+\.[0-9]{5} Rate=[0-9]+\.[0-9]{2} GlobalRate=[0-9]+\.[0-9]{2} Time=$t$")
  done
  expected+=("^Epoch $epoch train end $t$")
  for step in 0 2; do
    expected+=("^\| Test Device=xla:0/0 Step=$step Epoch=$epoch Time=$t$")
  done
  expected+=("^Epoch $epoch test end $t, Accuracy=[0-9]+\.[0-9]{2}$")
  expected+=("^Epoch $epoch test top-5 Accuracy: [0-9]+\.[0-9]{2}% of [0-9]+ samples$")
done
expected+=("^Max Accuracy: 100\.00%$")

mapfile -t lines <"$out"
[ "${#lines[@]}" -eq "${#expected[@]}" ] || fail "expected ${#expected[@]} lines, got ${#lines[@]}"
for i in "${!expected[@]}"; do
  [[ "${lines[$i]}" =~ ${expected[$i]} ]] || fail "line $((i + 1)): '${lines[$i]}' !~ ${expected[$i]}"
done

# A missed --target_accuracy prints the XLA line and exits 21 (an untrained model, lr 0, answers
# another class than 0 for the all-zero images).
set +e
"$train" --model=resnet20 --num_classes=10 --fake_data --image_size=32 --batch_size=4 \
  --test_set_batch_size=4 --num_epochs=1 --num_steps=1 --num_test_steps=1 --lr=0 --num_cores=1 \
  --target_accuracy=100 >"$out"
code=$?
set -e
[ "$code" -eq 21 ] || fail "target accuracy missed: exit $code, expected 21"
grep -qE "^Accuracy [0-9]+\.[0-9]{2} is below target 100\.00$" "$out" || fail "no below-target line"
echo "PASS"
