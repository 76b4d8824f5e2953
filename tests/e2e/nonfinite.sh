#!/usr/bin/env bash
# A diverged model never scores. --lr=10 on a small Fashion-MNIST folder leaves non-finite outputs
# after two steps whose losses were finite: its evaluation must count every sample wrong and say so,
# write no model_best, and exit 22; a resumed run whose one step at a huge LR diverges must not
# replace a good model_best. A checkpoint with a NaN in fc.bias must not score 100% under
# --evaluate (it did: compared with NaN no class is larger), nor one with an infinite
# running_var, whose outputs stay finite; predict refuses both.
set -uo pipefail
train="$1"
predict="$(dirname "$train")/predict"
converter="$(dirname "$train")/fashion_mnist_folders"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$converter" --out="$dir/fm" --train_per_class=20 --val_per_class=10 >/dev/null ||
  fail "fashion_mnist_folders failed"
args=(--model=resnet20 --datadir="$dir/fm" --augment=cifar --image_size=28 --batch_size=8
      --num_cores=1)

# run NAME EXPECTED_EXIT ARGS...: train with ARGS, its output in $dir/NAME.out and .err.
run() {
  local name="$1" expected="$2"
  shift 2
  "$train" "$@" >"$dir/$name.out" 2>"$dir/$name.err"
  local code=$?
  [ "$code" -eq "$expected" ] ||
    { cat "$dir/$name.out" "$dir/$name.err"; fail "$name: exit $code, expected $expected"; }
}
# expect_nonfinite NAME EPOCH outputs|weights: the evaluation counted all 100 samples wrong and
# said why: non-finite outputs, or weights that are not all finite (whatever the outputs).
expect_nonfinite() {
  local name="$1" epoch="$2" line error
  if [ "$3" = outputs ]; then
    line="Epoch $epoch test: 100 of 100 samples had non-finite outputs (counted wrong)"
    error="train: error: the last evaluation had non-finite outputs for 100 of 100 samples (the model diverged)"
  else
    line="Epoch $epoch test: the weights or BatchNorm statistics are not finite: all 100 samples counted as non-finite (wrong)"
    error="train: error: the last evaluation's weights or BatchNorm statistics are not finite (the model diverged)"
  fi
  grep -qxF "$line" "$dir/$name.out" || { cat "$dir/$name.out"; fail "$name: no non-finite line"; }
  grep -qE "^Epoch $epoch test end .*, Accuracy=0\.00$" "$dir/$name.out" ||
    { cat "$dir/$name.out"; fail "$name: the accuracy is not 0.00"; }
  grep -qxF "$error" "$dir/$name.err" || { cat "$dir/$name.err"; fail "$name: no error line"; }
  echo "ok: $name: $(grep 'non-finite' "$dir/$name.out")"
}

run diverged 22 "${args[@]}" --num_steps=2 --num_epochs=1 --lr=10 --logdir="$dir/diverged"
expect_nonfinite diverged 1 outputs
[ ! -e "$dir/diverged/model_best.safetensors" ] || fail "NaN weights became model_best"
[ "$(jq -s '[.[] | select(.kind == "eval") | .nonfinite] == [100]' "$dir/diverged/metrics.jsonl")" = true ] ||
  fail "the eval record does not count 100 non-finite samples"
"$root/scripts/check_accuracy" "$dir/diverged" --min 1 >/dev/null &&
  fail "check_accuracy passed a diverged run"

# A good epoch, then a resumed one whose step (its loss still finite) leaves the weights
# diverged: model_best stays the good epoch's.
run good 0 "${args[@]}" --num_steps=1 --num_epochs=1 --lr=0.05 --logdir="$dir/good"
cp "$dir/good/model_best.safetensors" "$dir/best_before.safetensors"
run resumed 22 "${args[@]}" --num_steps=1 --num_epochs=2 --lr=1e30 --logdir="$dir/good" \
  --resume=auto
expect_nonfinite resumed 2 outputs
cmp -s "$dir/good/model_best.safetensors" "$dir/best_before.safetensors" ||
  fail "the resumed run replaced model_best with a diverged model"
echo "ok: model_best kept"

# poisoned NAME TENSOR BYTES: a copy of the good epoch's checkpoint, $dir/NAME.safetensors, whose
# TENSOR's first float is the 4 little-endian BYTES (printf escapes).
checkpoint="$dir/good/checkpoint-epoch-1.safetensors"
header="$(od -An -t u8 -N8 "$checkpoint" | tr -d ' ')"
poisoned() {
  local start
  start="$(head -c $((8 + header)) "$checkpoint" | tail -c "$header" |
           jq --arg name "$2" '.[$name].data_offsets[0]')"
  cp "$checkpoint" "$dir/$1.safetensors"
  printf "$3" | dd of="$dir/$1.safetensors" bs=1 seek=$((8 + header + start)) conv=notrunc 2>/dev/null
}
poisoned nan fc.bias '\377\377\377\377'           # NaN: every logit NaN
poisoned inf bn1.running_var '\000\000\200\177'   # +inf: that channel scaled to 0, outputs finite

for poison in nan inf; do
  run "evaluate_$poison" 22 "${args[@]}" --evaluate --pretrained="$dir/$poison.safetensors"
  expect_nonfinite "evaluate_$poison" 0 weights
  "$predict" --checkpoint="$dir/$poison.safetensors" --model=resnet20 --image_size=28 \
    --augment=cifar "$dir/fm/val/Bag" >"$dir/predict.jsonl" 2>"$dir/predict.err"
  code=$?
  [ "$code" -eq 1 ] || fail "predict exited $code on a $poison checkpoint"
  [ ! -s "$dir/predict.jsonl" ] || { head -n 2 "$dir/predict.jsonl"; fail "predict answered"; }
  grep -qx "predict: error: $dir/$poison.safetensors: its weights or BatchNorm statistics are not finite (a diverged checkpoint)" \
    "$dir/predict.err" || { cat "$dir/predict.err"; fail "predict: no error line"; }
  echo "ok: predict refuses the $poison checkpoint"
done
echo "PASS"
