#!/usr/bin/env bash
# --logdir and --profile against what goes wrong around real runs: a --profile path the trace
# cannot go to, temporary files left by killed checkpoint writes, a metrics line cut off by a
# crash, a disk that fills up in the middle of a metrics line or before the first TensorBoard
# record. Each either fails at once with one line, or is repaired and said so; no half-written
# line or file stays.
set -uo pipefail
train="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$(mktemp -d)"
trap 'umount "$dir/tmpfs" 2>/dev/null; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect_error.bash"

tiny=(--model=resnet20 --fake_data --image_size=28 --batch_size=4 --num_steps=2
      --num_test_steps=1 --num_cores=1)

# --profile: refused before the first step (nothing on stdout), naming the flag; no DIR.tmp.
mkdir "$dir/folder"
expect_error 1 "--profile: cannot write $dir/folder: Is a directory" \
  "$train" "${tiny[@]}" --num_epochs=1 --profile="$dir/folder"
expect_error 1 "--profile: cannot write $dir/missing/trace.json: No such file or directory" \
  "$train" "${tiny[@]}" --num_epochs=1 --profile="$dir/missing/trace.json"
[ "$(ls "$dir")" = "$(printf 'expect.err\nexpect.out\nfolder')" ] || { ls "$dir"; fail "left files"; }
"$train" "${tiny[@]}" --num_epochs=1 --profile="$dir/trace.json" >"$dir/profile.log" ||
  { cat "$dir/profile.log"; fail "--profile to a file failed"; }
jq -e '.traceEvents | length > 0' "$dir/trace.json" >/dev/null || fail "no trace events"
compgen -G "$dir/trace.json.tmp*" >/dev/null && fail "--profile left a temporary file"
echo "ok: --profile"

# Temporary files of killed writes of this logdir's files are removed at start, whatever pid they
# name (the run holds the logdir's lock: no writer of them is alive); anything not named like
# ours stays.
run="$dir/run"
mkdir "$run"
true &
dead=$!
wait "$dead"
stale=("checkpoint-last.safetensors.tmp.$dead.0" "checkpoint-epoch-3.safetensors.tmp.$dead.2"
       "model_best.safetensors.tmp.$dead.1" "summary.json.tmp.$dead.5"
       "checkpoint-last.safetensors.tmp.$$.0")
kept=("checkpoint-last.safetensors.tmp.$dead" "notes.txt.tmp.$dead.0" "metrics.jsonl.tmp.$dead.0")
for name in "${stale[@]}"; do head -c 100000 /dev/zero >"$run/$name"; done
for name in "${kept[@]}"; do echo "not ours" >"$run/$name"; done
"$train" "${tiny[@]}" --num_epochs=1 --logdir="$run" >"$dir/first.log" 2>&1 || { cat "$dir/first.log"; fail "run"; }
grep -qxF "Note: removed 5 temporary files of killed writes from --logdir $run" "$dir/first.log" ||
  { cat "$dir/first.log"; fail "no note of the removed files"; }
for name in "${stale[@]}"; do [ ! -e "$run/$name" ] || fail "$name was left"; done
for name in "${kept[@]}"; do [ -e "$run/$name" ] || fail "$name was removed"; done
echo "ok: stale temporary files"

# A crash cut the last metrics line: the resumed run removes it, says so, and appends whole lines.
printf '{"kind":"eval","epoch":1,"to' >>"$run/metrics.jsonl"
"$train" "${tiny[@]}" --logdir="$run" --resume=auto --num_epochs=2 >"$dir/resumed.log" 2>&1 ||
  { cat "$dir/resumed.log"; fail "the resumed run failed"; }
grep -qxF "warning: $run/metrics.jsonl ended in a partial line (28 bytes, cut off by a crash?); removed it" \
  "$dir/resumed.log" || { cat "$dir/resumed.log"; fail "no warning about the partial line"; }
jq -e . "$run/metrics.jsonl" >/dev/null || fail "metrics.jsonl has a line that is not JSON"
"$root/scripts/check_accuracy" "$run" --min 0 || fail "check_accuracy rejects the resumed logdir"
echo "ok: a partial metrics line"

# A disk that fills up 40 bytes into a metrics line (files may not grow past 64 KiB; SIGXFSZ
# ignored, so the write fails as on a full disk): one line naming the file, and metrics.jsonl
# keeps exactly its whole lines.
full="$dir/full"
mkdir "$full"
{
  printf '{"kind":"note","text":"'
  head -c $((65536 - 40 - 26)) /dev/zero | tr '\0' x
  printf '"}\n'
} >"$full/metrics.jsonl"
cp "$full/metrics.jsonl" "$dir/metrics.before"
(trap '' XFSZ && ulimit -f 64 && exec "$train" "${tiny[@]}" --num_epochs=1 --logdir="$full") \
  >"$dir/full.out" 2>"$dir/full.err"
code=$?
[ "$code" -ne 0 ] && [ "$code" -lt 128 ] || fail "the run on a full disk exited $code"
[ "$(wc -l <"$dir/full.err")" -eq 1 ] || { cat "$dir/full.err"; fail "expected one error line"; }
grep -qF "cannot append to $full/metrics.jsonl: 40 of " "$dir/full.err" ||
  { cat "$dir/full.err"; fail "the error does not name metrics.jsonl"; }
cmp "$full/metrics.jsonl" "$dir/metrics.before" || fail "metrics.jsonl changed on a full disk"
echo "ok: a full disk: $(cat "$dir/full.err")"

# A disk that is full but for the page the logdir's lock record takes (a 64 KiB tmpfs, 15 of its
# 16 pages filled; needs root): the TensorBoard event file's first record does not fit. One line
# naming it, and no empty event file left.
mkdir "$dir/tmpfs"
if mount -t tmpfs -o size=64k tmpfs "$dir/tmpfs" 2>/dev/null; then
  head -c $((15 * 4096)) /dev/zero >"$dir/tmpfs/filler"
  expect_error 1 "train: error: cannot append to $dir/tmpfs/run/events.out.tfevents." \
    "$train" "${tiny[@]}" --num_epochs=1 --logdir="$dir/tmpfs/run"
  grep -qF ": No space left on device" "$dir/expect.err" || fail "the error does not say why"
  compgen -G "$dir/tmpfs/run/events.out.tfevents.*" >/dev/null && fail "an event file was left"
  echo "ok: no event file on a full disk"
else
  echo "skip: cannot mount a tmpfs here (needs root): the full disk before the event file not tried"
fi
echo "PASS"
