#!/usr/bin/env bash
# bfloat16 as users turn it on: --bf16 or torch_xla's XLA_USE_BF16=1 (the same run, to the bit),
# said in the Model and Memory lines; XLA_USE_BF16=0 is float32; a value torch_xla would not read
# is one clear error. Checkpoints stay float32, so float32 runs resume in bfloat16 and back.
set -euo pipefail
train="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib/losses.bash"
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect_error.bash"

args=(--model=resnet20 --num_classes=10 --fake_data --image_size=16 --batch_size=8
      --test_set_batch_size=8 --num_epochs=1 --num_steps=6 --log_steps=1 --num_test_steps=2
      --lr=0.05 --num_cores=1)
"$train" "${args[@]}" --bf16 >"$dir/flag.log"
cat "$dir/flag.log"
grep -qE '^Model resnet20: 269,722 parameters, 0\.01 GMACs per image at 16x16, bfloat16 multiplies( on AVX512_BF16|, emulated \(no AVX512_BF16 in this build: slower than float32\))$' \
  "$dir/flag.log" || fail "the Model line does not say bfloat16"
grep -qE '^Memory: 1 core x [0-9]+ MB \(batch 8, bfloat16\) = ' "$dir/flag.log" ||
  fail "the Memory line does not say bfloat16"
grep -q '^Max Accuracy: 100\.00%$' "$dir/flag.log" || fail "bfloat16 did not learn the fake task"

XLA_USE_BF16=1 "$train" "${args[@]}" >"$dir/env.log"
[ "$(losses "$dir/flag.log")" = "$(losses "$dir/env.log")" ] ||
  fail "XLA_USE_BF16=1 and --bf16 trained differently"
"$train" "${args[@]}" >"$dir/float32.log"
XLA_USE_BF16=0 "$train" "${args[@]}" >"$dir/env0.log"
grep -q ', float32$' "$dir/env0.log" || fail "XLA_USE_BF16=0 is not float32"
[ "$(losses "$dir/float32.log")" = "$(losses "$dir/env0.log")" ] ||
  fail "XLA_USE_BF16=0 and float32 trained differently"

set +e  # expect_error checks the exit code itself
expect_error 2 "XLA_USE_BF16: expected 1, 0, true or false, got 'yes'" \
  env XLA_USE_BF16=yes "$train" "${args[@]}"
set -e

# float32 -> bfloat16 -> float32 through --resume=auto: the checkpoints hold float32 tensors.
resume=(--model=resnet20 --num_classes=10 --fake_data --image_size=16 --batch_size=4
        --test_set_batch_size=4 --num_steps=2 --num_test_steps=1 --num_cores=1
        --logdir="$dir/run")
"$train" "${resume[@]}" --num_epochs=1 >"$dir/r1.log"
"$train" "${resume[@]}" --num_epochs=2 --resume=auto --bf16 >"$dir/r2.log"
grep -q '^Epoch 2 test end' "$dir/r2.log" || fail "bfloat16 did not resume a float32 run"
grep -qx "Note: $dir/run/checkpoint-last.safetensors was trained in float32; this run goes on in bfloat16" \
  "$dir/r2.log" || fail "the switch to bfloat16 on resume was silent"
"$train" "${resume[@]}" --num_epochs=3 --resume=auto >"$dir/r3.log"
grep -q '^Epoch 3 test end' "$dir/r3.log" || fail "float32 did not resume a bfloat16 run"
grep -qx "Note: $dir/run/checkpoint-last.safetensors was trained in bfloat16; this run goes on in float32" \
  "$dir/r3.log" || fail "the switch to float32 on resume was silent"
header_size="$(od -An -tu8 -N8 "$dir/run/checkpoint-epoch-2.safetensors" | tr -d ' ')"
dtypes="$(head -c $((8 + header_size)) "$dir/run/checkpoint-epoch-2.safetensors" | tail -c "$header_size" |
          grep -oE '"dtype":"[A-Z0-9]+"' | sort -u | tr '\n' ' ')"
[ "$dtypes" = '"dtype":"F32" "dtype":"I64" ' ] ||
  fail "a bfloat16 run's checkpoint holds $dtypes, expected float32 tensors (and int64 counters)"
echo "PASS"
