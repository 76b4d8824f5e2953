#!/usr/bin/env bash
# Learns a real data set in both precisions: a Fashion-MNIST subset (200 training and 100 test
# images per class, written as PNG folders by fashion_mnist_folders) trains resnet20 with the
# small-image recipe in float32 and with --bf16 (scripts/compare_precision), seed 1. Each run's
# Max Accuracy must end far above chance (one class in ten): the bar of 50 sits well below what
# either precision reaches over several seeds (docs/PRECISION.md). And bfloat16 may fall at most
# bf16_bound points below float32 of the same seed, the spread of float32's own Max Accuracy over
# seeds: one seed cannot tell a smaller loss from noise. So a check free of training noise
# follows: float32's final weights, tested in both precisions, may differ by eval_bound points at
# most, a few times what the rounding of the evaluation alone moves them. Multiplies that kept only
# bfloat16's exponent bits passed the first check and fail this one: evaluated with them,
# float32's weights score at chance.
# TRAIN [SEEDS]: more seeds give the comparison of docs/PRECISION.md, float32 against bf16:
#   bash tests/e2e/fashion_mnist.sh build/apps/train "1 2 3"    # minutes on 2 cores
set -euo pipefail
train="$(realpath "$1")"
seeds="${2:-1}"
bf16_bound=11  # points of Max Accuracy, see above
eval_bound=2   # points of top-1 on the same weights, see above
converter="$(dirname "$train")/fashion_mnist_folders"
compare="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/compare_precision"
[ -x "$converter" ] || { echo "FAIL: no converter at $converter" >&2; exit 1; }
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
unset XLA_USE_BF16  # the float32 tests below must be float32
# at_least X Y [LESS]: X >= Y - LESS, decimal numbers.
at_least() { awk -v x="$1" -v y="$2" -v less="${3:-0}" 'BEGIN { exit !(x + 0 >= y - less) }'; }
max_top1() { awk -F, -v s="$1" -v p="$2" '$1 == s && $2 == p { print $3 }' "$dir/runs/runs.csv"; }
recipe=(--model=resnet20 --datadir="$dir/data" --augment=cifar --image_size=28 --batch_size=50
        --test_set_batch_size=100 --num_epochs=5 --lr=0.05 --log_steps=20 --num_cores=2)
# tested_top1 WEIGHTS [--bf16]: the top-1 of WEIGHTS on the test images, tested as in the recipe.
tested_top1() {
  "$train" "${recipe[@]}" --evaluate --pretrained="$1" "${@:2}" |
    sed -n 's/^Epoch 0 test end .*, Accuracy=\([0-9.]*\)$/\1/p'
}

"$converter" --out="$dir/data" --train_per_class=200 --val_per_class=100
XTRAIN_TRAIN="$train" "$compare" --seeds "$seeds" --out "$dir/runs" -- "${recipe[@]}" ||
  fail "a run failed (its last lines are above)"

read -ra seed_list <<<"$seeds"
first_log="$dir/runs/float32-seed-${seed_list[0]}/console.log"
grep -q "^Model resnet20: 269,722 parameters" "$first_log" ||
  fail "--num_classes did not default to 10"
for seed in "${seed_list[@]}"; do
  float32="$(max_top1 "$seed" float32)"
  bf16="$(max_top1 "$seed" bf16)"
  at_least "$float32" 50 || fail "float32, seed $seed: top-1 $float32% is below 50%"
  at_least "$bf16" 50 || fail "bf16, seed $seed: top-1 $bf16% is below 50%"
  at_least "$bf16" "$float32" "$bf16_bound" ||
    fail "bf16, seed $seed: top-1 $bf16% is more than $bf16_bound points below float32's $float32%"
  weights="$dir/runs/float32-seed-$seed/checkpoint-last.safetensors"
  tested_float32="$(tested_top1 "$weights")"
  tested_bf16="$(tested_top1 "$weights" --bf16)"
  [ -n "$tested_float32" ] && [ -n "$tested_bf16" ] || fail "no accuracy from --evaluate"
  at_least "$tested_bf16" "$tested_float32" "$eval_bound" &&
    at_least "$tested_float32" "$tested_bf16" "$eval_bound" ||
    fail "seed $seed: float32's final weights test at $tested_float32% in float32 but" \
         "$tested_bf16% in bf16, more than $eval_bound points apart"
  echo "PASS: seed $seed: top-1 $float32% in float32, $bf16% in bf16; float32's final weights" \
       "test at $tested_float32% in float32, $tested_bf16% in bf16"
done
