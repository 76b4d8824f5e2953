#!/usr/bin/env bash
# scripts/compare_precision: on a stand-in for train whose summary.json numbers follow from the
# seed and precision, the CSV, the per-seed table, the means and their difference; a failed run
# is marked and makes the exit 1 while the others still run; bad arguments exit 2 with one line
# on stderr. Then tiny real runs: float32 and bfloat16 are what their Model lines say, even with
# XLA_USE_BF16=1 in the environment.
set -uo pipefail
train="$1"
compare="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/compare_precision"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect_error.bash"

# float32: max 60 + seed, final 50 + seed, 10 * seed seconds; bf16: max 59 + 2 * seed,
# final 40 + seed, 20 * seed seconds; bf16 with seed 9 fails.
cat >"$dir/stand_in_train" <<'STAND_IN'
#!/usr/bin/env bash
echo "args: $*"
seed="" logdir="" bf16=0
for arg in "$@"; do
  case "$arg" in
    --seed=*) seed="${arg#--seed=}" ;;
    --logdir=*) logdir="${arg#--logdir=}" ;;
    --bf16) bf16=1 ;;
  esac
done
if [ "$bf16" = 1 ]; then
  [ "$seed" = 9 ] && { echo "out of luck" >&2; exit 3; }
  numbers=($((59 + 2 * seed)) $((40 + seed)) $((20 * seed)))
else
  numbers=($((60 + seed)) $((50 + seed)) $((10 * seed)))
fi
printf '{"max_top1": %s, "final_top1": %s, "total_seconds": %s}\n' "${numbers[@]}" \
  >"$logdir/summary.json"
STAND_IN
chmod +x "$dir/stand_in_train"
export XTRAIN_TRAIN="$dir/stand_in_train"

"$compare" --seeds "1 2" --out "$dir/ok" -- --model=resnet20 >"$dir/table.md" 2>"$dir/err" ||
  { cat "$dir/table.md" "$dir/err"; fail "the comparison exited non-zero"; }
expected_csv="seed,precision,max_top1,final_top1,wall_seconds,status
1,float32,61,51,10,ok
1,bf16,61,41,20,ok
2,float32,62,52,20,ok
2,bf16,63,42,40,ok"
[ "$(cat "$dir/ok/runs.csv")" = "$expected_csv" ] || { cat "$dir/ok/runs.csv"; fail "bad runs.csv"; }
grep -qx "args: --model=resnet20 --seed=2 --logdir=$dir/ok/bf16-seed-2 --bf16" \
  "$dir/ok/bf16-seed-2/console.log" || fail "bf16-seed-2 was not run with the right flags"
grep -qx "args: --model=resnet20 --seed=1 --logdir=$dir/ok/float32-seed-1" \
  "$dir/ok/float32-seed-1/console.log" || fail "float32-seed-1 was not run with the right flags"
expected_rows="| 1 | 61.00 | 61.00 | 51.00 | 41.00 | 10.0 | 20.0 |
| 2 | 62.00 | 63.00 | 52.00 | 42.00 | 20.0 | 40.0 |
| mean | 61.50 | 62.00 | 51.50 | 41.50 | 15.0 | 30.0 |
| bf16 - float32 |  | +0.50 |  | -10.00 |  | +15.0 |"
[ "$(tail -n 4 "$dir/table.md")" = "$expected_rows" ] ||
  { cat "$dir/table.md"; fail "bad table rows"; }
echo "ok: $(tail -n 1 "$dir/table.md")"

# A failed run: marked in the CSV and the table, the next runs still go, no means, exit 1.
"$compare" --seeds "9 1" --out "$dir/failed" -- --model=resnet20 >"$dir/table.md" 2>"$dir/err"
code=$?
[ "$code" -eq 1 ] || { cat "$dir/table.md" "$dir/err"; fail "a failed run gave exit $code, not 1"; }
grep -qx "9,bf16,,,,failed (exit 3)" "$dir/failed/runs.csv" ||
  { cat "$dir/failed/runs.csv"; fail "bf16 seed 9 not marked failed"; }
grep -qx "1,bf16,61,41,20,ok" "$dir/failed/runs.csv" || fail "the runs after the failure did not go"
grep -qx "| 9 | 69.00 | - | 59.00 | - | 90.0 | - |" "$dir/table.md" ||
  { cat "$dir/table.md"; fail "no row with the failed run"; }
! grep -q "mean" "$dir/table.md" || fail "means over different seeds per precision"
grep -q "out of luck" "$dir/err" || fail "the failure's last log lines were not shown"
echo "ok: failed run reported as: $(grep '^9,bf16' "$dir/failed/runs.csv")"

expect_error 2 "no --seeds" "$compare" --out "$dir/x" -- --model=resnet20
expect_error 2 "'one' is not a whole number" "$compare" --seeds "1 one" --out "$dir/x"
expect_error 2 "a value repeats" "$compare" --seeds "2 2" --out "$dir/x"
for flag in --seed=5 --logdir=/tmp/x --bf16; do
  expect_error 2 "$flag: the comparison sets --seed, --logdir and --bf16" \
    "$compare" --seeds 1 --out "$dir/x" -- "$flag"
done
expect_error 2 "$dir/ok/runs.csv already exists" "$compare" --seeds 3 --out "$dir/ok"
rm "$dir/ok/runs.csv"
expect_error 2 "$dir/ok/float32-seed-2 already exists" "$compare" --seeds "3 2" --out "$dir/ok"
expect_error 2 "unexpected '--bogus' (usage:" "$compare" --seeds 1 --bogus

# Tiny real runs, with XLA_USE_BF16=1 exported as on a TPU host.
XTRAIN_TRAIN="$train" XLA_USE_BF16=1 "$compare" --seeds 1 --out "$dir/real" -- \
  --model=resnet20 --num_classes=10 --fake_data --image_size=16 --batch_size=4 \
  --test_set_batch_size=4 --num_epochs=1 --num_steps=2 --num_test_steps=1 --num_cores=1 \
  >"$dir/table.md" 2>"$dir/err" || { cat "$dir/table.md" "$dir/err"; fail "real runs failed"; }
grep -q '^Model resnet20: .*, float32$' "$dir/real/float32-seed-1/console.log" ||
  fail "the float32 run was not float32"
grep -q '^Model resnet20: .*, bfloat16 multiplies' "$dir/real/bf16-seed-1/console.log" ||
  fail "the bf16 run was not bfloat16"
echo "PASS"
