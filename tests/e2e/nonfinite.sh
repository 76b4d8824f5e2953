#!/usr/bin/env bash
# A diverged model never scores. The issue's command (--lr=10 on a small Fashion-MNIST folder)
# leaves NaN weights after two steps whose losses were finite: its evaluation must count every
# sample wrong and say so, write no model_best, and exit 22; a resumed run whose one step at a
# huge LR diverges must not replace a good model_best. A checkpoint with a NaN in fc.bias must not score 100% under
# --evaluate (it did: compared with NaN no class is larger), and predict must mark its images.
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
# expect_nonfinite NAME EPOCH: the evaluation counted all 100 samples wrong and said so.
expect_nonfinite() {
  local name="$1" epoch="$2"
  grep -qx "Epoch $epoch test: 100 of 100 samples had non-finite outputs (counted wrong)" \
    "$dir/$name.out" || { cat "$dir/$name.out"; fail "$name: no non-finite line"; }
  grep -qE "^Epoch $epoch test end .*, Accuracy=0\.00$" "$dir/$name.out" ||
    { cat "$dir/$name.out"; fail "$name: the accuracy is not 0.00"; }
  grep -qx "train: error: the last evaluation had non-finite outputs for 100 of 100 samples (the model diverged)" \
    "$dir/$name.err" || { cat "$dir/$name.err"; fail "$name: no error line"; }
  echo "ok: $name: $(grep 'non-finite' "$dir/$name.out")"
}

# The issue's command.
run diverged 22 "${args[@]}" --num_steps=2 --num_epochs=1 --lr=10 --logdir="$dir/diverged"
expect_nonfinite diverged 1
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
expect_nonfinite resumed 2
cmp -s "$dir/good/model_best.safetensors" "$dir/best_before.safetensors" ||
  fail "the resumed run replaced model_best with a diverged model"
echo "ok: model_best kept"

# A NaN in fc.bias makes every logit NaN.
checkpoint="$dir/good/checkpoint-epoch-1.safetensors"
header="$(od -An -t u8 -N8 "$checkpoint" | tr -d ' ')"
bias_start="$(head -c $((8 + header)) "$checkpoint" | tail -c "$header" |
              jq '.["fc.bias"].data_offsets[0]')"
cp "$checkpoint" "$dir/nan.safetensors"
printf '\377\377\377\377' |  # a NaN float
  dd of="$dir/nan.safetensors" bs=1 seek=$((8 + header + bias_start)) conv=notrunc 2>/dev/null

run evaluate 22 "${args[@]}" --evaluate --pretrained="$dir/nan.safetensors"
expect_nonfinite evaluate 0
grep -q "Accuracy=100.00" "$dir/evaluate.out" && fail "--evaluate scored a NaN model 100%"

"$predict" --checkpoint="$dir/nan.safetensors" --model=resnet20 --image_size=28 --augment=cifar \
  "$dir/fm/val/Bag" >"$dir/predict.jsonl" 2>"$dir/predict.err"
code=$?
[ "$code" -ne 0 ] || fail "predict exited 0 on non-finite outputs"
[ "$(wc -l <"$dir/predict.jsonl")" -eq 10 ] || { cat "$dir/predict.jsonl"; fail "expected 10 lines"; }
jq -e -s 'all(.[]; keys_unsorted == ["path", "error"] and .error == "non-finite outputs")' \
  "$dir/predict.jsonl" >/dev/null || { head -n 2 "$dir/predict.jsonl"; fail "images not marked"; }
grep -qx "predict: warning: 10 of 10 images had non-finite outputs (a diverged checkpoint?)" \
  "$dir/predict.err" || { cat "$dir/predict.err"; fail "predict: no warning"; }
echo "ok: predict (exit $code): $(head -n 1 "$dir/predict.jsonl")"
echo "PASS"
