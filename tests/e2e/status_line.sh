#!/usr/bin/env bash
# On a terminal (a pseudo-terminal made by script(1)), train redraws a status line in place
# between its log lines: "\r\033[K" then "Epoch 1/1  step N/40  ... ETA epoch M:SS, run M:SS",
# at most once a second, erased before each log line so those read as before. Through a pipe it
# prints no control characters at all.
set -euo pipefail
train="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

args="--model=resnet20 --num_classes=10 --fake_data --image_size=32 --batch_size=16 \
  --num_epochs=1 --num_steps=40 --num_test_steps=1 --log_steps=20 --num_cores=2"
# script -e: exit with the command's code; the terminal's output is script's stdout.
script -q -e -c "$train $args" /dev/null >"$dir/terminal" </dev/null ||
  { cat -A "$dir/terminal"; fail "train on a terminal failed"; }
draws=$(grep -aoE $'\r\033\\[KEpoch 1/1  step [0-9]+/40  [0-9.]+ images/s  data wait [0-9]+%  ETA epoch [0-9:]+, run [0-9:]+' \
  "$dir/terminal" | wc -l)
[ "$draws" -ge 2 ] || { cat -A "$dir/terminal"; fail "expected the status line drawn at least twice, got $draws"; }
# Each log line still starts a line of its own (the status is erased before it, not left in it).
for line in '| Training Device=xla:0/0 Epoch=1 Step=20 ' 'Epoch 1 train end ' 'Max Accuracy: '; do
  tr '\r' '\n' <"$dir/terminal" | sed 's/^\x1b\[K//' | grep -qF -- "$line" ||
    { cat -A "$dir/terminal"; fail "no log line starting '$line'"; }
done
echo "ok: $draws status lines drawn in place on a terminal, log lines intact"

"$train" $args 2>&1 | cat >"$dir/piped"
grep -qF '| Training Device=xla:0/0 Epoch=1 Step=20 ' "$dir/piped" || { cat "$dir/piped"; fail "the piped run logged nothing"; }
if LC_ALL=C grep -q $'[\r\033]' "$dir/piped"; then cat -A "$dir/piped"; fail "a piped run printed control characters"; fi
echo "ok: a piped run prints no control characters"
