#!/usr/bin/env bash
# torchvision's reference sizes on a real image folder (Fashion-MNIST PNGs): a run that trains
# at --train_crop_size=24 and tests at --val_crop_size=28 trains and scores every val image; its
# logged top-1 is predict's at --image_size=28 on the same weights (the test images really were
# resized to round(28 / 0.875) and cropped to 28), and so after a bicubic resize to 40 given to
# both; bicubic and nearest runs, the cifar recipe and
# an evaluation at another test size run too; bad sizes are one line naming the flag.
set -uo pipefail
train="$1"
predict="$(dirname "$train")/predict"
converter="$(dirname "$train")/fashion_mnist_folders"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect_error.bash"

"$converter" --out="$dir/fm" --train_per_class=8 --val_per_class=3 >/dev/null ||
  fail "fashion_mnist_folders failed"
common=(--model=resnet20 --datadir="$dir/fm" --batch_size=8 --test_set_batch_size=5
        --num_cores=2 --lr=0.05 --seed=1)

# RUN NAME ARGS...: trains into $dir/NAME, which must have evaluated all 30 val images.
run() {
  local name="$1"
  shift
  "$train" "${common[@]}" --logdir="$dir/$name" "$@" >"$dir/$name.log" 2>&1 ||
    { cat "$dir/$name.log"; fail "$name: train $* failed"; }
  local samples
  samples="$(jq -r 'select(.kind == "eval") | .samples' "$dir/$name/metrics.jsonl" | tail -n 1)"
  [ "$samples" = 30 ] || { cat "$dir/$name.log"; fail "$name: $samples test samples, not 30"; }
  echo "ok: $name: $* trained and scored 30 val images"
}

# expect_predict_scores LOGGED ARGS...: predict with ARGS on the sizes run's last weights scores
# the 30 val images at LOGGED percent, guessing more than one class.
expect_predict_scores() {
  local logged="$1"
  shift
  "$predict" --checkpoint="$dir/sizes/checkpoint-last.safetensors" --model=resnet20 \
    --classes="$dir/fm" "$@" "$dir/fm/val" >"$dir/predict.jsonl" 2>"$dir/err" ||
    { cat "$dir/err"; fail "predict $* failed"; }
  local ours guessed
  ours="$(jq -s '[.[] | (.path | split("/") | .[-2]) == .classes[0]] | map(select(.)) | length
                 | . * 100 / 30' "$dir/predict.jsonl")"
  awk -v a="$logged" -v b="$ours" 'BEGIN { exit !(a - b < 0.001 && b - a < 0.001) }' ||
    fail "predict's top-1 $ours% with $* differs from the logged top-1 $logged%"
  guessed="$(jq -r '.top_k[0]' "$dir/predict.jsonl" | sort -u | wc -l)"
  [ "$guessed" -ge 2 ] || fail "one class for everything, a weak comparison"
  echo "ok: the logged top-1 $logged% is predict's with $* ($guessed classes guessed)"
}

run sizes --train_crop_size=24 --val_crop_size=28 --num_epochs=2
grep -q "per image at 24x24" "$dir/sizes.log" || fail "the model line is not at the training side"
expect_predict_scores "$(jq -r 'select(.kind == "eval") | .top1' "$dir/sizes/metrics.jsonl" |
                         tail -n 1)" --image_size=28
# The same weights tested after a bicubic resize to 40: predict given the same resize agrees.
"$train" "${common[@]}" --evaluate --pretrained="$dir/sizes/checkpoint-last.safetensors" \
  --val_crop_size=28 --val_resize_size=40 --interpolation=bicubic >"$dir/bicubic40.log" 2>&1 ||
  { cat "$dir/bicubic40.log"; fail "--evaluate after a bicubic resize to 40 failed"; }
expect_predict_scores "$(grep -oE 'Accuracy=[0-9.]+' "$dir/bicubic40.log" | tail -n 1 | cut -d= -f2)" \
  --image_size=28 --val_resize_size=40 --interpolation=bicubic

run bicubic --train_crop_size=24 --val_crop_size=28 --val_resize_size=36 \
  --interpolation=bicubic --num_epochs=1
run nearest --image_size=20 --val_crop_size=32 --interpolation=nearest --num_epochs=1
run cifar --augment=cifar --train_crop_size=24 --val_crop_size=28 --num_epochs=1
"$train" "${common[@]}" --evaluate --pretrained="$dir/sizes/checkpoint-last.safetensors" \
  --val_crop_size=32 --val_resize_size=40 >"$dir/evaluate.log" 2>&1 ||
  { cat "$dir/evaluate.log"; fail "--evaluate at another test size failed"; }
grep -q "top-5 Accuracy: .* of 30 samples" "$dir/evaluate.log" ||
  { cat "$dir/evaluate.log"; fail "--evaluate did not score the 30 val images"; }
grep -q "per image at 32x32" "$dir/evaluate.log" || fail "--evaluate's model line is not at 32"
echo "ok: --evaluate at --val_crop_size=32"

expect_error 2 "--val_resize_size=24 is smaller than --val_crop_size=28" \
  "$train" "${common[@]}" --val_crop_size=28 --val_resize_size=24
expect_error 2 "--val_resize_size needs --augment=imagenet" \
  "$train" "${common[@]}" --augment=cifar --val_resize_size=32
expect_error 2 "--train_crop_size" "$train" "${common[@]}" --train_crop_size=0
expect_error 2 "--interpolation" "$train" "${common[@]}" --interpolation=area
expect_error non-zero "--val_crop_size=32 is too small for alexnet" \
  "$train" --model=alexnet --fake_data --image_size=64 --val_crop_size=32
expect_error non-zero "--train_crop_size=32 is too small for alexnet" \
  "$train" --model=alexnet --fake_data --train_crop_size=32
