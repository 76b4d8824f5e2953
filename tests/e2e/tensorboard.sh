#!/usr/bin/env bash
# --logdir writes one TensorBoard event file that readers other than ours accept: every record's
# two masked CRC-32Cs check out (computed here in bash, not by lib/io), and protoc --decode_raw
# (Debian's protobuf-compiler, which scripts/test installs) parses each Event: file_version
# first, then core 0's training scalars at the global step, then the evaluations' at the epoch.
set -euo pipefail
train="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v protoc >/dev/null || fail "protoc not found (Debian package protobuf-compiler)"

"$train" --model=resnet20 --num_classes=10 --fake_data --image_size=28 --batch_size=4 \
  --test_set_batch_size=4 --num_epochs=2 --num_steps=6 --num_test_steps=1 --log_steps=3 \
  --num_cores=2 --logdir="$dir/run" >"$dir/train.out" 2>&1 || { cat "$dir/train.out"; fail "train failed"; }
files=("$dir"/run/events.out.tfevents.*)
[ ${#files[@]} -eq 1 ] || fail "expected one event file, found: ${files[*]}"
events="${files[0]}"

# TFRecord's masked CRC-32C of the given byte values (reflected polynomial 0x82F63B78).
masked_crc32c() {
  local crc=$((0xFFFFFFFF)) byte bit
  for byte in "$@"; do
    crc=$((crc ^ byte))
    for bit in 1 2 3 4 5 6 7 8; do crc=$(((crc >> 1) ^ (0x82F63B78 & -(crc & 1)))); done
  done
  crc=$((crc ^ 0xFFFFFFFF))
  echo $(((((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF))
}
# The little-endian number in bytes[$1 .. $1 + $2 - 1].
little_endian() {
  local value=0 i
  for ((i = $2 - 1; i >= 0; i--)); do value=$(((value << 8) | bytes[$1 + i])); done
  echo "$value"
}

# read_events FILE: checks every record's CRCs, decodes each with protoc into $dir/decoded
# ("record N" then its fields), and sets $count.
read_events() {
  local events="$1" size offset=0 length
  read -ra bytes <<<"$(od -An -v -tu1 "$events" | tr -s ' \n' '  ')"
  size=${#bytes[@]}
  count=0
  : >"$dir/decoded"
  while [ "$offset" -lt "$size" ]; do
    length=$(little_endian "$offset" 8)
    [ $((offset + 16 + length)) -le "$size" ] || fail "record $count at byte $offset is cut off"
    [ "$(little_endian $((offset + 8)) 4)" = "$(masked_crc32c "${bytes[@]:offset:8}")" ] ||
      fail "record $count: the length's CRC does not match"
    [ "$(little_endian $((offset + 12 + length)) 4)" = \
      "$(masked_crc32c "${bytes[@]:offset + 12:length}")" ] || fail "record $count: the data's CRC does not match"
    # dd, not tail | head: head leaving early can kill tail with SIGPIPE, failing the pipeline.
    dd if="$events" of="$dir/record" iflag=skip_bytes,count_bytes skip=$((offset + 12)) \
      count="$length" status=none
    { echo "record $count"; protoc --decode_raw <"$dir/record"; } >>"$dir/decoded" ||
      fail "record $count: protoc cannot parse it"
    offset=$((offset + 16 + length))
    count=$((count + 1))
  done
}

read_events "$events"
# file_version, then per epoch core 0's training lines (steps 0 and 3) and the evaluation.
[ "$count" -eq 7 ] || { cat "$dir/decoded"; fail "expected 7 records, found $count"; }
echo "ok: $count records, every CRC matches, protoc parses each"

# record N's decoded text
record() { awk -v n="$1" '$0 == "record " n {on = 1; next} /^record / {on = 0} on' "$dir/decoded"; }
record 0 | grep -qx '3: "brain.Event:2"' || { record 0; fail "the first event is not file_version"; }
for n in 1 2 4 5; do
  for tag in Loss/train examples/sec average_examples/sec LearningRate DataWait/share; do
    record "$n" | grep -qF "1: \"$tag\"" || { record "$n"; fail "record $n has no $tag"; }
  done
done
# Training events at the global step after the logged step, evaluations at their epoch.
steps="$(for n in 1 2 3 4 5 6; do record "$n" | grep -E '^2: ' | cut -d' ' -f2; done | tr '\n' ' ')"
[ "$steps" = "1 4 1 7 10 2 " ] || fail "steps are '$steps', expected '1 4 1 7 10 2 '"
for n in 3 6; do
  # fake data is all label 0, learnt at once: 100% is 0x42c80000 as a float
  record "$n" | grep -A1 -F '1: "Accuracy/test"' | grep -qx '    2: 0x42c80000' ||
    { record "$n"; fail "record $n: no Accuracy/test of 100"; }
  record "$n" | grep -qF '1: "Accuracy/test_top5"' || fail "record $n has no Accuracy/test_top5"
done
echo "ok: file_version, the training scalars at global steps 1 4 7 10, Accuracy/test at epochs 1 2"

# A run killed (SIGKILL) in the middle of training: every record written is whole and readable.
"$train" --model=resnet20 --num_classes=10 --fake_data --image_size=28 --batch_size=4 \
  --num_epochs=1 --num_steps=100000 --log_steps=1 --num_cores=1 --logdir="$dir/killed" \
  >"$dir/killed.out" 2>&1 &
pid=$!
for _ in $(seq 600); do  # a hang guard of 60 s, not a timing goal
  grep -q 'Step=20 ' "$dir/killed.out" && break
  sleep 0.1
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
grep -q 'Step=20 ' "$dir/killed.out" || { cat "$dir/killed.out"; fail "the run to kill did not reach step 20"; }
read_events "$dir"/killed/events.out.tfevents.*
[ "$count" -ge 21 ] || fail "the killed run's event file has $count records, expected at least 21"
echo "ok: a killed run's event file reads whole: $count records"
