#!/usr/bin/env bash
# Bad --datadir input: one line on stderr naming the path and the problem, a non-zero exit, no
# crash; an unreadable image is skipped with a warning, or fatal under --strict, and an unreadable
# val image is left out of the accuracy.
set -uo pipefail
train="$1"
dir="$(mktemp -d)"
err="$(mktemp)"
out="$(mktemp)"
trap 'rm -rf "$dir" "$err" "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# A 1x1 gray image (binary PGM, one of torchvision's image extensions).
image() { printf 'P5\n1 1\n255\n\x80' >"$1"; }

expect_error() {  # TEXT ARGS...: fails with one stderr line containing TEXT
  local text="$1"
  shift
  "$train" --model=resnet20 --image_size=8 --batch_size=2 --test_set_batch_size=2 \
    --num_epochs=1 "$@" >"$out" 2>"$err"
  local code=$?
  [ "$code" -ne 0 ] || fail "'$*' exited 0"
  [ "$(wc -l <"$err")" -eq 1 ] || { cat "$err"; fail "'$*': expected one line on stderr"; }
  grep -qF -- "$text" "$err" || { cat "$err"; fail "'$*': the error does not say '$text'"; }
  grep -qiE "terminate|abort|what\(\)" "$err" && fail "'$*': looks like a crash"
  echo "ok: $(cat "$err")"
}

expect_error "$dir/none: no such folder" --datadir="$dir/none"
expect_error "$dir/train: no such folder" --datadir="$dir"
mkdir -p "$dir/train/cat" "$dir/train/dog" "$dir/val/cat" "$dir/val/dog"
for split in train val; do for cls in cat dog; do image "$dir/$split/$cls/a.pgm"; done; done
image "$dir/train/cat/b.pgm"
rm -r "$dir/val"
expect_error "$dir/val: no such folder" --datadir="$dir"
mkdir -p "$dir/val/cat" "$dir/val/dog"
image "$dir/val/cat/a.pgm"
expect_error "$dir/val/dog: no images in the class folder" --datadir="$dir"
image "$dir/val/dog/a.pgm"
mkdir -p "$dir/val/emu" && image "$dir/val/emu/a.pgm"
expect_error "$dir/val: the classes differ from $dir/train's: extra 'emu'" --datadir="$dir"
rm -r "$dir/val/emu"
expect_error "--fake_data" --datadir="$dir" --fake_data
expect_error "--num_classes=1 but $dir has 2 classes" --datadir="$dir" --num_classes=1

# A corrupt file: skipped with a warning naming it, the run goes on; under --strict it is fatal.
echo "not an image" >"$dir/train/dog/corrupt.jpg"
"$train" --model=resnet20 --image_size=8 --batch_size=2 --test_set_batch_size=2 --num_epochs=1 \
  --augment=cifar --datadir="$dir" >"$out" 2>"$err" || { cat "$out" "$err"; fail "a corrupt file stopped the run"; }
grep -qF "skipping unreadable image $dir/train/dog/corrupt.jpg: not a decodable image" "$out" "$err" ||
  { cat "$out" "$err"; fail "no warning naming the corrupt file"; }
grep -q "^Max Accuracy" "$out" || fail "the run did not finish"
expect_error "unreadable image $dir/train/dog/corrupt.jpg: not a decodable image (--strict)" \
  --datadir="$dir" --strict

# Unreadable val images are left out of the accuracy, not replaced by readable ones counted twice.
# The 7 readable val images have the same pixels, so the model gives them all one class: 4 are
# cat and 3 dog, and the top-1 accuracy is 4/7 or 3/7 (scoring 10 samples would give k/10).
scored="$dir/scored"
mkdir -p "$scored/train/cat" "$scored/train/dog" "$scored/val/cat" "$scored/val/dog"
image "$scored/train/cat/a.pgm"
image "$scored/train/dog/a.pgm"
for i in 1 2 3 4; do image "$scored/val/cat/$i.pgm"; done
for i in 1 2 3; do
  image "$scored/val/dog/$i.pgm"
  echo "not an image" >"$scored/val/dog/bad$i.jpg"
done
# On 2 cores in batches of 1, one core scores 4 samples and the other 3, in fewer batches.
for cores_and_batch in 1:10 2:1; do  # --num_cores:--test_set_batch_size
  "$train" --model=resnet20 --image_size=8 --batch_size=2 --num_epochs=1 --augment=cifar \
    --num_cores="${cores_and_batch%:*}" --test_set_batch_size="${cores_and_batch#*:}" \
    --datadir="$scored" >"$out" 2>"$err" ||
    { cat "$out" "$err"; fail "unreadable val images stopped the run"; }
  accuracy="$(sed -n 's/^Epoch 1 test end .*, Accuracy=//p' "$out" "$err")"
  case "$accuracy" in
    57.14 | 42.86) echo "ok: $cores_and_batch: 7 of 10 val images scored, Accuracy=$accuracy" ;;
    *) cat "$out" "$err"; fail "Accuracy=$accuracy is not 4/7 or 3/7: not 7 samples scored" ;;
  esac
  grep -qx "Epoch 1 skipped 3 unreadable images" "$out" "$err" ||
    { cat "$out" "$err"; fail "no 'Epoch 1 skipped 3 unreadable images' line"; }
done
echo "PASS"
