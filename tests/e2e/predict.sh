#!/usr/bin/env bash
# predict on real checkpoints: resnet20 trained a few steps on Fashion-MNIST PNG folders with the
# imagenet and the cifar recipe. With the same --augment, predict must agree with the trainer's
# own evaluation of the same weights (its top-1 over the val folder equals the logged top-1), print
# well-formed lines (keys, sorted top-k, probabilities summing to 1, class names), give the same
# answers whatever the batch size, skip an unreadable image with a warning and a non-zero exit,
# and report bad flags and checkpoints as one line on stderr.
set -uo pipefail
train="$1"
predict="$(dirname "$train")/predict"
converter="$(dirname "$train")/fashion_mnist_folders"
[ -x "$predict" ] || { echo "FAIL: no predict at $predict" >&2; exit 1; }
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect_error.bash"

"$converter" --out="$dir/fm" --train_per_class=40 --val_per_class=5 >/dev/null ||
  fail "fashion_mnist_folders failed"
for augment in imagenet cifar; do
  "$train" --model=resnet20 --datadir="$dir/fm" --augment=$augment --image_size=28 \
    --batch_size=20 --test_set_batch_size=25 --num_epochs=2 --num_cores=1 --lr=0.05 --seed=1 \
    --logdir="$dir/$augment" >"$dir/train.log" 2>&1 ||
    { cat "$dir/train.log"; fail "train --augment=$augment failed"; }
done
checkpoint="$dir/imagenet/checkpoint-last.safetensors"
[ -f "$checkpoint" ] || fail "train wrote no $checkpoint"
run_predict() { "$predict" --checkpoint="$checkpoint" --model=resnet20 --image_size=28 "$@"; }

# The val folder, class names from its train split: its top-1 is the trainer's evaluation of the
# same weights, for each recipe.
for augment in imagenet cifar; do
  "$predict" --checkpoint="$dir/$augment/checkpoint-last.safetensors" --model=resnet20 \
    --image_size=28 --augment=$augment --classes="$dir/fm" "$dir/fm/val" \
    >"$dir/$augment.jsonl" 2>"$dir/err" || { cat "$dir/err"; fail "--augment=$augment failed"; }
  [ ! -s "$dir/err" ] || { cat "$dir/err"; fail "--augment=$augment wrote to stderr"; }
  logged="$(jq -r 'select(.kind == "eval") | .top1' "$dir/$augment/metrics.jsonl" | tail -n 1)"
  ours="$(jq -s '[.[] | (.path | split("/") | .[-2]) == .classes[0]] | map(select(.)) | length
                 | . * 100 / 50' "$dir/$augment.jsonl")"
  awk -v a="$logged" -v b="$ours" 'BEGIN { exit !(a - b < 0.001 && b - a < 0.001) }' ||
    fail "--augment=$augment: predict's top-1 $ours% differs from the logged top-1 $logged%"
  guessed="$(jq -r '.top_k[0]' "$dir/$augment.jsonl" | sort -u | wc -l)"
  [ "$guessed" -ge 2 ] || fail "--augment=$augment: one class for everything, a weak comparison"
  echo "ok: --augment=$augment: top-1 $ours% ($guessed classes guessed), as train logged"
done

# One line per image, in folder order, with sorted top-k, probabilities and class names.
val="$dir/imagenet.jsonl"
[ "$(wc -l <"$val")" -eq 50 ] || fail "expected 50 lines, got $(wc -l <"$val")"
jq -r .path "$val" | diff - <(find "$dir/fm/val" -name '*.png' | LC_ALL=C sort) >/dev/null ||
  fail "the paths are not the val images in sorted order"
jq -e -s 'all(.[]; keys_unsorted == ["path", "top_k", "classes", "probabilities"]
               and (.top_k | length) == 5 and (.probabilities | length) == 5
               and .probabilities == (.probabilities | sort | reverse)
               and (.probabilities | add) <= 1.000001)' "$val" >/dev/null ||
  { head -n 2 "$val"; fail "malformed lines"; }
names="$(LC_ALL=C ls "$dir/fm/train" | jq -R . | jq -s -c .)"  # sorted as predict sorts
jq -e -s --argjson names "$names" 'all(.[]; .classes == [.top_k[] as $i | $names[$i]])' \
  "$val" >/dev/null || fail "classes are not the train folder names of top_k"

# All classes: the probabilities sum to 1; other batch sizes change nothing.
run_predict --top_k=20 "$dir/fm/val" >"$dir/all.jsonl" || fail "--top_k=20 exited non-zero"
jq -e -s 'all(.[]; (.top_k | sort) == [range(10)] and (.classes == null)
               and ((.probabilities | add) - 1 | fabs) < 1e-6)' "$dir/all.jsonl" >/dev/null ||
  { head -n 1 "$dir/all.jsonl"; fail "--top_k=20: not every class once, or sums are not 1"; }
run_predict --top_k=20 --batch_size=7 "$dir/fm/val" >"$dir/batch7.jsonl" || fail "--batch_size=7"
jq -e -s --slurpfile a "$dir/all.jsonl" '[., $a] | transpose | all(.[];
    .[0].top_k == .[1].top_k and ([.[0].probabilities, .[1].probabilities] | transpose
                                  | all(.[]; (.[0] - .[1] | fabs) < 1e-5)))' \
  "$dir/batch7.jsonl" >/dev/null || fail "--batch_size=7 changes the predictions"
echo "ok: probabilities sum to 1, batch size 7 gives the answers of 16"

# Files and folders mixed, extensions in any case, non-images in folders ignored; an unreadable
# file is a warning naming it, the others are still classified, and the exit is non-zero.
mkdir -p "$dir/mixed/sub"
cp "$dir/fm/val/Bag/$(ls "$dir/fm/val/Bag" | head -n 1)" "$dir/mixed/sub/deep.PNG"
echo "notes" >"$dir/mixed/notes.txt"
echo "not an image" >"$dir/mixed/broken.jpg"
single="$(find "$dir/fm/val/Coat" -name '*.png' | head -n 1)"
run_predict "$single" "$dir/mixed" >"$dir/mixed.jsonl" 2>"$dir/err"
code=$?
[ "$code" -ne 0 ] || fail "an unreadable image did not make the exit non-zero"
[ "$(wc -l <"$dir/err")" -eq 1 ] || { cat "$dir/err"; fail "expected one warning"; }
grep -qF "skipping unreadable image $dir/mixed/broken.jpg: not a decodable image" "$dir/err" ||
  { cat "$dir/err"; fail "the warning does not name the file"; }
[ "$(jq -r .path "$dir/mixed.jsonl" | tr '\n' ' ')" = "$single $dir/mixed/sub/deep.PNG " ] ||
  { cat "$dir/mixed.jsonl"; fail "expected the single file, then sub/deep.PNG"; }
echo "ok: $(cat "$dir/err")"
mkdir "$dir/no_images"
run_predict "$single" "$dir/no_images/" >"$dir/out" 2>"$dir/err" &&
  fail "a folder without images exited 0"
grep -qF "$dir/no_images/: no images" "$dir/err" || { cat "$dir/err"; fail "no warning"; }
[ "$(wc -l <"$dir/out")" -eq 1 ] || fail "the other image was not classified"
echo "ok: $(cat "$dir/err")"

# Bad checkpoints and flags: one line on stderr, no predictions, a non-zero exit.
with_checkpoint=("$predict" --checkpoint="$checkpoint")
expect_error non-zero "does not fit the model" "${with_checkpoint[@]}" --model=resnet32 "$single"
expect_error non-zero "does not fit the model: mismatches: fc.weight" "${with_checkpoint[@]}" \
  --model=resnet20 --num_classes=7 "$single"
expect_error non-zero "--classes=$dir/fm names 10 classes but the model has 7 outputs" \
  "${with_checkpoint[@]}" --model=resnet20 --num_classes=7 --classes="$dir/fm" "$single"
head -c 100 "$checkpoint" >"$dir/truncated.safetensors"
expect_error non-zero "$dir/truncated.safetensors" "$predict" \
  --checkpoint="$dir/truncated.safetensors" --model=resnet20 --num_classes=10 "$single"
expect_error non-zero "--checkpoint" "$predict" --checkpoint="$dir/missing.safetensors" \
  --model=resnet20 "$single"
expect_error non-zero "--model" "${with_checkpoint[@]}" --model=alexnet "$single"
expect_error non-zero "--top_k" "${with_checkpoint[@]}" --model=resnet20 --top_k=0 "$single"
expect_error non-zero "--augment" "${with_checkpoint[@]}" --model=resnet20 --augment=none "$single"
expect_error non-zero "paths is required" "${with_checkpoint[@]}" --model=resnet20
echo "PASS"
