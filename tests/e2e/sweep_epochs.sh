#!/usr/bin/env bash
# scripts/sweep_epochs.sh on tiny real runs: one logdir per epoch count with its console log, a
# sweep.csv whose rows are the runs' summary.json, a Markdown table; a failed run is marked and
# makes the exit 1 while the others still run; bad arguments exit 2 with one line on stderr.
set -uo pipefail
train="$(realpath "$1")"  # absolute: one run starts in another folder
sweep="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/sweep_epochs.sh"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect_error.bash"
export XTRAIN_TRAIN="$train"
tiny=(--model=resnet20 --num_classes=10 --fake_data --image_size=16 --batch_size=4
      --test_set_batch_size=4 --num_steps=2 --num_test_steps=1 --log_steps=1 --num_cores=1)

"$sweep" --epochs "1 2" --out "$dir/sweep" -- "${tiny[@]}" >"$dir/table.md" 2>"$dir/err" ||
  { cat "$dir/table.md" "$dir/err"; fail "the sweep exited non-zero"; }
csv="$dir/sweep/sweep.csv"
[ "$(head -n 1 "$csv")" = \
  "num_epochs,final_top1,max_top1,final_top5,wall_seconds,images_per_second,status" ] ||
  fail "bad header: $(head -n 1 "$csv")"
[ "$(wc -l <"$csv")" -eq 3 ] || { cat "$csv"; fail "expected two rows"; }
for v in 1 2; do
  run="$dir/sweep/epochs-$v"
  grep -q "^Max Accuracy" "$run/console.log" || fail "$run/console.log is not the run's output"
  [ "$(jq .epochs "$run/summary.json")" -eq "$v" ] || fail "$run did not train $v epochs"
  [ "$(jq -c 'select(.kind == "eval") | .epoch' "$run/metrics.jsonl" | wc -l)" -eq "$v" ] ||
    fail "$run/metrics.jsonl does not have $v evaluations"
  numbers='\(.final_top1),\(.max_top1),\(.final_top5),\(.total_seconds),\(.images_per_second)'
  expected="$(jq -r "\"$v,$numbers,ok\"" "$run/summary.json")"
  grep -qxF "$expected" "$csv" || { cat "$csv"; fail "no row '$expected'"; }
done
row='^| [12] | [0-9.]* | [0-9.]* | [0-9.]* | [0-9.]* | [0-9.]* | ok |$'
[ "$(grep -c "$row" "$dir/table.md")" -eq 2 ] ||
  { cat "$dir/table.md"; fail "the Markdown table does not show both runs"; }
echo "ok: $(tr '\n' ' ' <"$csv")"

# A run that fails: marked in the CSV and the table, the next run still goes, exit 1.
cat >"$dir/flaky_train" <<FLAKY
#!/usr/bin/env bash
case " \$* " in *" --num_epochs=3 "*) echo "out of luck" >&2; exit 3 ;; esac
exec "$train" "\$@"
FLAKY
chmod +x "$dir/flaky_train"
XTRAIN_TRAIN="$dir/flaky_train" "$sweep" --epochs "3 1" --out "$dir/flaky" -- "${tiny[@]}" \
  >"$dir/table.md" 2>"$dir/err"
code=$?
[ "$code" -eq 1 ] || { cat "$dir/table.md" "$dir/err"; fail "a failed run gave exit $code, not 1"; }
grep -qx "3,,,,,,failed (exit 3)" "$dir/flaky/sweep.csv" ||
  { cat "$dir/flaky/sweep.csv"; fail "run 3 not marked failed"; }
grep -q "^1,.*,ok$" "$dir/flaky/sweep.csv" || fail "the run after the failure did not go"
grep -q "^| 3 | - | - | - | - | - | failed (exit 3) |$" "$dir/table.md" ||
  fail "no failed row in the table"
grep -q "out of luck" "$dir/err" || fail "the failure's last log lines were not shown"
echo "ok: failed run reported as: $(grep '^3,' "$dir/flaky/sweep.csv")"

# Without --out: sweeps/<date>-<time>/ in the current folder.
(cd "$dir" && "$sweep" --epochs 1 -- "${tiny[@]}" >/dev/null 2>&1) ||
  fail "the default --out run failed"
ls "$dir"/sweeps/*-*/sweep.csv >/dev/null 2>&1 || fail "no sweeps/<date>-<time>/sweep.csv"

expect_error 2 "no --epochs" "$sweep" --out "$dir/x" -- "${tiny[@]}"
expect_error 2 "'two' is not a positive whole number" "$sweep" --epochs "1 two" --out "$dir/x"
expect_error 2 "a value repeats" "$sweep" --epochs "2 2" --out "$dir/x"
expect_error 2 "the sweep sets --num_epochs" "$sweep" --epochs 1 --out "$dir/x" -- --num_epochs=5
expect_error 2 "$dir/sweep/sweep.csv already exists" "$sweep" --epochs 4 --out "$dir/sweep"
rm "$dir/sweep/sweep.csv"
expect_error 2 "$dir/sweep/epochs-2 already exists" "$sweep" --epochs "4 2" --out "$dir/sweep"
expect_error 2 "unexpected '--bogus' (usage:" "$sweep" --epochs 1 --bogus
echo "PASS"
