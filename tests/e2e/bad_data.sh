#!/usr/bin/env bash
# Bad --datadir input: one line on stderr naming the path and the problem, a non-zero exit, no
# crash; an unreadable image is skipped with a warning, or fatal under --strict.
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
echo "PASS"
