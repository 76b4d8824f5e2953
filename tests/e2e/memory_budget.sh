#!/usr/bin/env bash
# The memory plan as a user meets it, with budgets set through XTRAIN_MEMORY_LIMIT: a run that
# cannot fit stops at once with one line saying what would fit, a default core count is capped
# to what fits (with a note), and every run prints its Memory and Run lines.
set -uo pipefail
train="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect_error.bash"

# The first command users run, under 2 GiB: not even one core fits at batch 128. The check comes
# before any core takes memory, so it answers at once (the timeout only guards against a run
# that starts training instead).
XTRAIN_MEMORY_LIMIT=2G expect_error 1 "2.0 GB is available: use --batch_size=" \
  timeout 10 "$train" --model=resnet50 --fake_data
grep -qE '^train: error: 1 core x batch 128 need [0-9.]+ GB; 2\.0 GB is available: use --batch_size=[0-9]+$' \
  "$dir/expect.err" || fail "unexpected error line"

# What one core needs at batch 32, as the run itself plans it (no epochs: nothing is trained).
args=(--model=resnet50 --fake_data --batch_size=32 --num_epochs=0)
XTRAIN_MEMORY_LIMIT=1T "$train" "${args[@]}" --num_cores=1 >"$dir/one.log" ||
  { cat "$dir/one.log"; fail "a 1-core run under 1T failed"; }
cat "$dir/one.log"
grep -qE '^Memory: 1 core x [0-9.]+ GB \(batch 32, float32\) = [0-9.]+ GB of 1024\.0 GB available$' \
  "$dir/one.log" || fail "no Memory line"
grep -qE '^Run: 0 epochs x [0-9]+ steps x 1 core x 32 images \(global batch 32\), test all [0-9]+ batches per core per epoch$' \
  "$dir/one.log" || fail "no Run line"
one_core_gb="$(sed -n 's/^Memory: .* = \([0-9.]*\) GB of .*/\1/p' "$dir/one.log")"
# Room for one and a half cores.
limit="$(awk -v gb="$one_core_gb" 'BEGIN { printf "%dM", gb * 1.5 * 1024 }')"

# An explicit --num_cores that does not fit: the largest batch at 2 cores, or 1 core.
XTRAIN_MEMORY_LIMIT="$limit" expect_error 1 "use --batch_size=" \
  "$train" "${args[@]}" --num_cores=2
grep -qE '^train: error: 2 cores x batch 32 need [0-9.]+ GB; [0-9.]+ GB is available: use --batch_size=[0-9]+ or --num_cores=1$' \
  "$dir/expect.err" || fail "unexpected error line"

# Without --num_cores: the hardware threads, capped to the one core that fits.
threads="$(nproc)"
XTRAIN_MEMORY_LIMIT="$limit" "$train" "${args[@]}" >"$dir/capped.log" ||
  { cat "$dir/capped.log"; fail "the capped default run failed"; }
cat "$dir/capped.log"
grep -qE '^Memory: 1 core x ' "$dir/capped.log" || fail "the default run does not use 1 core"
if [ "$threads" -gt 1 ]; then
  grep -qE "^Note: using 1 of $threads cores: $threads cores x batch 32 need [0-9.]+ GB, [0-9.]+ GB is available$" \
    "$dir/capped.log" || fail "no Note line for the capped default"
else
  echo "skipped the Note check: one hardware thread, nothing to cap"
fi

# A budget that is not a size is named.
XTRAIN_MEMORY_LIMIT=lots expect_error 1 "XTRAIN_MEMORY_LIMIT=lots" "$train" "${args[@]}"
echo "PASS"
