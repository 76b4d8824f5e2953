#!/usr/bin/env bash
# --cache_dataset as a user runs it: on a small Fashion-MNIST folder (fashion_mnist_folders), two
# epochs of resnet20 on two cores with the cache give every loss, every accuracy and the last
# checkpoint's tensors bit for bit as the same run without it, and the Memory line counts the
# decoded images. A cache the memory budget cannot hold stops the run at once, in one line naming
# --cache_dataset and the sizes, before the logdir exists; --fake_data has nothing to cache and
# takes the flag without a word.
set -uo pipefail
train="$(realpath "$1")"
converter="$(dirname "$train")/fashion_mnist_folders"
[ -x "$converter" ] || { echo "FAIL: no converter at $converter" >&2; exit 1; }
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect_error.bash"
source "$(dirname "${BASH_SOURCE[0]}")/lib/losses.bash"
unset XLA_USE_BF16
# The tensors of a safetensors file: what follows its header (whose metadata records the flags).
tensors() { tail -c +$(($(od -An -tu8 -N8 "$1" | tr -d ' ') + 9)) "$1" | md5sum; }
accuracies() { grep -oE '^Epoch [0-9]+ test end .*, Accuracy=[0-9.]+' "$1" | sed 's/ end .*,/:/'; }

"$converter" --out="$dir/data" --train_per_class=30 --val_per_class=10 || fail "no data set"
recipe=(--model=resnet20 --datadir="$dir/data" --augment=cifar --image_size=28 --batch_size=25
        --test_set_batch_size=50 --num_epochs=2 --lr=0.05 --log_steps=2 --num_cores=2 --seed=3)
"$train" "${recipe[@]}" --logdir="$dir/plain" >"$dir/plain.log" ||
  { cat "$dir/plain.log"; fail "the run without the cache failed"; }
"$train" "${recipe[@]}" --logdir="$dir/cached" --cache_dataset >"$dir/cached.log" ||
  { cat "$dir/cached.log"; fail "the run with --cache_dataset failed"; }
cat "$dir/cached.log"
grep -qE '^Memory: 2 cores x [0-9]+ MB \(batch 25, float32\) \+ [0-9]+ MB of decoded images = ' \
  "$dir/cached.log" || fail "the Memory line does not count the decoded images"
grep -q 'decoded images' "$dir/plain.log" && fail "a run without the cache counts decoded images"
[ -n "$(losses "$dir/plain.log")" ] || fail "no training lines"
[ "$(losses "$dir/plain.log")" = "$(losses "$dir/cached.log")" ] ||
  fail "--cache_dataset changed the losses"
[ "$(accuracies "$dir/plain.log" | wc -l)" -eq 2 ] || fail "expected two test passes"
[ "$(accuracies "$dir/plain.log")" = "$(accuracies "$dir/cached.log")" ] ||
  fail "--cache_dataset changed the accuracies"
[ "$(tensors "$dir/plain/checkpoint-last.safetensors")" = \
  "$(tensors "$dir/cached/checkpoint-last.safetensors")" ] ||
  fail "--cache_dataset changed the checkpoint's tensors"
echo "ok: the same losses, accuracies and checkpoint with --cache_dataset"

# Two 3000 x 3000 grayscale PGMs decode to 27 MB of RGB each: a budget with room for the run but
# not for them refuses the cache. torchvision's spelling is the same flag.
mkdir -p "$dir/big/train/a" "$dir/big/val/a"
for split in train val; do
  { printf 'P5\n3000 3000\n255\n'; head -c 9000000 /dev/zero; } >"$dir/big/$split/a/0.pgm"
done
big=(--model=resnet20 --datadir="$dir/big" --augment=cifar --image_size=28 --batch_size=1
     --test_set_batch_size=1 --num_epochs=1 --num_cores=1 --num_workers=1)
"$train" "${big[@]}" --num_epochs=0 >"$dir/need.log" || { cat "$dir/need.log"; fail "no plan"; }
need_mb="$(sed -n 's/^Memory: .* = \([0-9]*\) MB of .*/\1/p' "$dir/need.log")"
[ -n "$need_mb" ] || { cat "$dir/need.log"; fail "no Memory line in MB"; }
limit="$((need_mb + 10))M"
XTRAIN_MEMORY_LIMIT="$limit" "$train" "${big[@]}" --num_epochs=0 >"$dir/fits.log" ||
  { cat "$dir/fits.log"; fail "the run does not fit in $limit without the cache"; }
XTRAIN_MEMORY_LIMIT="$limit" expect_error 1 "leave out --cache_dataset" \
  timeout 60 "$train" "${big[@]}" --logdir="$dir/refused" --cache-dataset
grep -qE "^train: error: 1 core x batch 1 need [0-9]+ MB, --cache_dataset's decoded images (5[0-9]) MB of it; [0-9]+ MB is available: leave out --cache_dataset$" \
  "$dir/expect.err" || fail "unexpected error line"
[ ! -e "$dir/refused" ] || fail "a refused run created its logdir"

"$train" --fake_data --model=resnet20 --num_epochs=0 --num_cores=1 --cache_dataset \
  >"$dir/fake.log" 2>&1 || { cat "$dir/fake.log"; fail "--fake_data --cache_dataset failed"; }
grep -q 'decoded images' "$dir/fake.log" && fail "--fake_data counts decoded images"
echo "PASS"
