#!/usr/bin/env bash
# Hostile files among the images of a class folder: a FIFO, a link to /dev/zero, a PNG whose
# header declares 30000x30000 pixels and a corrupt file with a newline in its name. Training
# skips each with one warning line naming it (escaped) and saying why, counts them and finishes;
# predict skips them with a warning each and exits 1. The image limit flags are checked.
# Guards turn a blocked read into a timeout and an unbounded one into a memory error, so a
# regression fails this test instead of hanging it or exhausting the machine.
set -uo pipefail
train="$1"
predict="$(dirname "$train")/predict"
[ -x "$predict" ] || { echo "FAIL: no predict at $predict" >&2; exit 1; }
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect_error.bash"

guarded() { (ulimit -v 4000000 && exec timeout 300 "$@"); }

image() { printf 'P5\n2 2\n255\n\x10\x80\xc0\xf0' >"$1"; }  # a 2x2 gray PGM
for split in train val; do
  for cls in a b; do
    mkdir -p "$dir/data/$split/$cls"
    image "$dir/data/$split/$cls/1.pgm"
    image "$dir/data/$split/$cls/2.pgm"
  done
done
bad="$dir/data/train/a"
mkfifo "$bad/fifo.png"
ln -s /dev/zero "$bad/zero.png"
# A 1-bit gray PNG whose IHDR (CRC included) declares 30000x30000, then IEND.
printf '\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x75\x30\x00\x00\x75\x30\x01\x00\x00\x00\x00\x4e\x5c\xc5\x17\x00\x00\x00\x00IEND\xae\x42\x60\x82' \
  >"$bad/bomb.png"
printf 'not an image' >"$bad/new
line.png"

# One step whose batch holds every training sample, so each bad file is met.
guarded "$train" --model=resnet20 --datadir="$dir/data" --augment=cifar --image_size=8 \
  --batch_size=12 --test_set_batch_size=4 --num_epochs=1 --num_steps=1 --num_cores=1 \
  --num_workers=2 --logdir="$dir/run" >"$dir/log" 2>&1
code=$?
[ "$code" -eq 0 ] || { cat "$dir/log"; fail "train exited $code (124: timed out)"; }
grep -q "^Max Accuracy" "$dir/log" || { cat "$dir/log"; fail "the run did not finish"; }
grep -qx "Epoch 1 skipped 4 unreadable images" "$dir/log" ||
  { cat "$dir/log"; fail "no 'Epoch 1 skipped 4 unreadable images' line"; }

# Each bad file: exactly one line names it, and says why.
expect_warning() {  # LOG NAME WHY
  local lines
  lines="$(grep -cF -- "$2" "$1")"
  [ "$lines" -eq 1 ] || { cat "$1"; fail "$lines lines name $2, expected 1"; }
  grep -qF -- "skipping unreadable image $2: $3" "$1" || { cat "$1"; fail "$2: not '$3'"; }
  echo "ok: $(grep -F -- "$2" "$1")"
}
check_warnings() {  # LOG
  expect_warning "$1" "$bad/fifo.png" "not a regular file (a FIFO)"
  expect_warning "$1" "$bad/zero.png" "not a regular file (a character device)"
  expect_warning "$1" "$bad/bomb.png" "30000x30000 pixels is over --max_image_pixels=178956970"
  expect_warning "$1" "$bad/new\\x0aline.png" "not a decodable image"
  ! grep -q "^line.png" "$1" || { cat "$1"; fail "a file name split a line"; }
}
check_warnings "$dir/log"

# predict over the same folder: the good images classified, each bad one a warning, exit 1.
guarded "$predict" --checkpoint="$dir/run/checkpoint-last.safetensors" --model=resnet20 \
  --image_size=8 --augment=cifar "$bad" >"$dir/predictions" 2>"$dir/predict.log"
code=$?
[ "$code" -eq 1 ] || { cat "$dir/predict.log"; fail "predict exited $code, expected 1"; }
[ "$(wc -l <"$dir/predictions")" -eq 2 ] || fail "expected the 2 good images classified"
check_warnings "$dir/predict.log"

# The limits are flags of both tools: positive integers, each skipping what is over it.
for value in 0 -1 1.5 inf nan 1e39 99999999999999999999; do
  expect_error 2 "--max_image_pixels" "$train" --fake_data --max_image_pixels="$value"
  expect_error 2 "--max_image_bytes" "$train" --fake_data --max_image_bytes="$value"
done
good="$dir/data/train/a/1.pgm"  # 15 bytes, 2x2 pixels
expect_error 2 "--max_image_bytes" "$predict" --checkpoint="$dir/run/checkpoint-last.safetensors" \
  --model=resnet20 --max_image_bytes=1e3 "$good"
guarded "$train" --model=resnet20 --datadir="$dir/data" --augment=cifar --image_size=8 \
  --batch_size=12 --test_set_batch_size=4 --num_epochs=1 --num_steps=1 --num_cores=1 \
  --max_image_pixels=3 >"$dir/log" 2>&1
grep -qF "skipping unreadable image $good: 2x2 pixels is over --max_image_pixels=3" "$dir/log" ||
  { cat "$dir/log"; fail "train --max_image_pixels=3 did not skip a 2x2 image"; }
for limit in "--max_image_bytes=14:15 bytes is over --max_image_bytes=14" \
  "--max_image_pixels=3:2x2 pixels is over --max_image_pixels=3"; do
  guarded "$predict" --checkpoint="$dir/run/checkpoint-last.safetensors" --model=resnet20 \
    --image_size=8 --augment=cifar "${limit%%:*}" "$good" >/dev/null 2>"$dir/predict.log"
  grep -qxF "predict: warning: skipping unreadable image $good: ${limit#*:}" "$dir/predict.log" ||
    { cat "$dir/predict.log"; fail "predict ${limit%%:*} did not skip a 2x2 image of 15 bytes"; }
done
echo "PASS"
