#!/usr/bin/env bash
# scripts/sweep_epochs.sh --epochs "1 2 4 8" [--out DIR] -- TRAIN_ARGS...
#
# Trains once per epoch count, each run with TRAIN_ARGS --num_epochs=V --logdir=OUT/epochs-V and
# its console output in OUT/epochs-V/console.log. OUT defaults to sweeps/<date>-<time>/ in the
# current folder. At the end OUT/sweep.csv holds one row per run, from its summary.json:
#   num_epochs,final_top1,max_top1,final_top5,wall_seconds,images_per_second,status
# and the same table is printed as Markdown. A run that fails (non-zero exit, or no summary.json)
# gets the status "failed (...)", the other runs still go, and the script exits 1; bad arguments
# exit 2. The runs use scripts/train, or the binary in $XTRAIN_TRAIN if set (the tests do).
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

error() { echo "sweep_epochs: error: $*" >&2; exit 2; }
usage() { error "$1 (usage: sweep_epochs.sh --epochs \"1 2 4 8\" [--out DIR] -- TRAIN_ARGS...)"; }

epochs=""
out="sweeps/$(date +%Y-%m-%d-%H%M%S)"
while [ $# -gt 0 ]; do
  case "$1" in
    --epochs) [ $# -ge 2 ] || usage "--epochs needs a value"; epochs="$2"; shift 2 ;;
    --epochs=*) epochs="${1#--epochs=}"; shift ;;
    --out) [ $# -ge 2 ] || usage "--out needs a folder"; out="$2"; shift 2 ;;
    --out=*) out="${1#--out=}"; shift ;;
    --) shift; break ;;
    *) usage "unexpected '$1'" ;;
  esac
done
train_args=("$@")

read -ra epoch_list <<<"$epochs"
[ ${#epoch_list[@]} -gt 0 ] || error "no --epochs given (e.g. --epochs \"1 2 4 8\")"
for v in "${epoch_list[@]}"; do
  [[ "$v" =~ ^[1-9][0-9]*$ ]] || error "--epochs: '$v' is not a positive whole number"
done
[ "$(printf '%s\n' "${epoch_list[@]}" | sort | uniq -d)" = "" ] || error "--epochs: a value repeats"
for arg in "${train_args[@]}"; do
  case "$arg" in
    --num_epochs|--num_epochs=*|--logdir|--logdir=*)
      error "$arg: the sweep sets --num_epochs and --logdir of each run itself" ;;
  esac
done
for existing in "$out/sweep.csv" "${epoch_list[@]/#/$out/epochs-}"; do
  [ ! -e "$existing" ] || error "$existing already exists (pick another --out)"
done
xtrain_install_missing_packages jq || exit 2
train="${XTRAIN_TRAIN:-$XTRAIN_ROOT/scripts/train}"
mkdir -p "$out" || error "cannot create $out"

csv="$out/sweep.csv"
echo "num_epochs,final_top1,max_top1,final_top5,wall_seconds,images_per_second,status" >"$csv"
failed=0
for v in "${epoch_list[@]}"; do
  logdir="$out/epochs-$v"
  mkdir -p "$logdir"
  echo "sweep_epochs: --num_epochs=$v, log in $logdir/console.log" >&2
  "$train" "${train_args[@]}" --num_epochs="$v" --logdir="$logdir" >"$logdir/console.log" 2>&1
  code=$?
  # The row's numbers, in the CSV's order, or nothing when the run left no readable summary.
  numbers="$(jq -r '[.final_top1, .max_top1, .final_top5, .total_seconds, .images_per_second]
                    | map(numbers) | select(length == 5) | @csv' "$logdir/summary.json" \
               2>/dev/null)"
  if [ "$code" -eq 0 ] && [ -n "$numbers" ]; then
    echo "$v,$numbers,ok" >>"$csv"
    continue
  fi
  status="failed (exit $code)"
  [ "$code" -eq 0 ] && status="failed (no summary.json)"
  echo "sweep_epochs: --num_epochs=$v $status; last lines of $logdir/console.log:" >&2
  tail -n 5 "$logdir/console.log" | sed 's/^/  /' >&2
  echo "$v,${numbers:-,,,,},$status" >>"$csv"
  failed=1
done

# The CSV as a Markdown table, numbers rounded for reading.
round() { [ -n "$1" ] && LC_NUMERIC=C printf "%.${2}f" "$1" || printf -- "-"; }  # NUMBER DECIMALS
echo "| epochs | final top-1 | max top-1 | final top-5 | wall time (s) | images/s | status |"
echo "|---:|---:|---:|---:|---:|---:|---|"
tail -n +2 "$csv" | while IFS=, read -r v final max top5 seconds rate status; do
  echo "| $v | $(round "$final" 2) | $(round "$max" 2) | $(round "$top5" 2) |" \
       "$(round "$seconds" 1) | $(round "$rate" 1) | $status |"
done
echo "sweep_epochs: results in $csv" >&2
exit "$failed"
