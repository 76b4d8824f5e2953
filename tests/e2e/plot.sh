#!/usr/bin/env bash
# scripts/plot on two tiny real runs: a PNG of the charts' size whose pixels change with the runs
# given, a record cut off by a crash tolerated, plot.png by default; bad input (no logdir, no
# metrics.jsonl, no records, unknown option) exits 2 with one line on stderr.
set -uo pipefail
train="$1"
plot="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/plot"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect_error.bash"

for lr in 0.1 0.01; do
  "$train" --model=resnet20 --num_classes=10 --fake_data --image_size=16 --batch_size=4 \
    --test_set_batch_size=4 --num_epochs=2 --num_steps=3 --num_test_steps=1 --log_steps=1 \
    --num_cores=1 --lr=$lr --logdir="$dir/lr-$lr" >"$dir/train.log" 2>&1 ||
    { cat "$dir/train.log"; fail "train failed"; }
done
printf '{"kind":"train","epoch":3,"st' >>"$dir/lr-0.01/metrics.jsonl"  # cut off by a crash

# PNG_FILE: "WIDTH HEIGHT" from its IHDR chunk, or nothing when it is not a PNG.
png_size() {
  [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || return
  od -An -tu1 -j16 -N8 "$1" |
    awk '{ print (($1 * 256 + $2) * 256 + $3) * 256 + $4, (($5 * 256 + $6) * 256 + $7) * 256 + $8 }'
}

"$plot" "$dir/lr-0.1" "$dir/lr-0.01/" --out "$dir/runs.png" 2>"$dir/err" ||
  { cat "$dir/err"; fail "plot exited non-zero"; }
[ "$(png_size "$dir/runs.png")" = "1400 520" ] || fail "$dir/runs.png is not a 1400x520 PNG"
grep -qF "plot: wrote $dir/runs.png" "$dir/err" || { cat "$dir/err"; fail "no 'wrote' line"; }
echo "ok: $(cat "$dir/err")"

# Default output: plot.png in the current folder; one run draws less than two.
(cd "$dir" && "$plot" lr-0.1 2>/dev/null) || fail "plot with the default --out failed"
[ -n "$(png_size "$dir/plot.png")" ] || fail "no plot.png in the current folder"
cmp -s "$dir/plot.png" "$dir/runs.png" && fail "one run and two runs give the same picture"

expect_error 2 "no LOGDIR given" "$plot" --out "$dir/x.png"
expect_error 2 "$dir has no metrics.jsonl" "$plot" "$dir"
mkdir "$dir/empty" && printf '{"kind":"eval","epoch":1,"top' >"$dir/empty/metrics.jsonl"
expect_error 2 "$dir/empty/metrics.jsonl has no training or evaluation records" "$plot" "$dir/empty"
expect_error 2 "unknown option --bogus" "$plot" "$dir/lr-0.1" --bogus
echo "PASS"
