#!/usr/bin/env bash
# The memory plan as a user meets it, with budgets set through XTRAIN_MEMORY_LIMIT and `ulimit -v`:
# a run that cannot fit stops at once with one line saying what would fit, a default core count
# is capped to what fits (with a note), and every run prints its Memory and Run lines. A run the
# plan accepts under `ulimit -v` trains to its end, and running out of address space anywhere,
# even in a library's initializer before main, is one error line and exit 1, never an abort.
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
# A limit above what the machine has does not turn the check off: the machine's memory counts.
XTRAIN_MEMORY_LIMIT=1T "$train" "${args[@]}" --num_cores=1 >"$dir/one.log" ||
  { cat "$dir/one.log"; fail "a 1-core run under 1T failed"; }
cat "$dir/one.log"
grep -qE '^Memory: 1 core x [0-9.]+ GB \(batch 32, float32\) = [0-9.]+ GB of [0-9.]+ GB available$' \
  "$dir/one.log" || fail "no Memory line"
grep -q ' of 1024\.0 GB available$' "$dir/one.log" && fail "a limit above the machine's memory counted"
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

# A budget that is not a size is named; hexadecimal is not read.
XTRAIN_MEMORY_LIMIT=lots expect_error 1 "XTRAIN_MEMORY_LIMIT=lots" "$train" "${args[@]}"
XTRAIN_MEMORY_LIMIT=0x100000000 expect_error 1 "XTRAIN_MEMORY_LIMIT=0x100000000: not a decimal" \
  "$train" "${args[@]}"

# R20: resnet20 on a small Fashion-MNIST tree (100 training and 50 validation images).
"$(dirname "$train")/fashion_mnist_folders" --out="$dir/data" --train_per_class=10 \
  --val_per_class=5 >/dev/null || fail "no Fashion-MNIST tree"
r20=(--model=resnet20 --datadir="$dir/data" --augment=cifar --image_size=28 --batch_size=8
     --num_cores=1 --num_workers=1)
# A test batch larger than the validation set (50 images) is planned at what a core gets.
XTRAIN_MEMORY_LIMIT=300M "$train" "${r20[@]}" --test_set_batch_size=4096 --num_epochs=1 \
  >"$dir/test_batch.log" || { cat "$dir/test_batch.log"; fail "a 4096 test batch of 50 images"; }
# One that does not fit is named, with what would.
XTRAIN_MEMORY_LIMIT=300M expect_error 1 \
  "not even batch 1 fits on 1 core with --test_set_batch_size=4096: use --test_set_batch_size=" \
  "$train" --model=resnet20 --fake_data --image_size=28 --batch_size=8 --num_cores=1 \
  --test_set_batch_size=4096 --num_epochs=0

# ulimit -v, on the same R20 run.
under_ulimit() {  # KB ARGS...: train R20 ARGS with `ulimit -v KB`
  bash -c 'ulimit -v "$1" && shift && exec "$@"' - "$1" "$train" "${r20[@]}" "${@:2}"
}
# The least address space the plan accepts (to 1 MB), found by bisection: --num_epochs=0 runs
# the plan and starts the trainer, and trains nothing.
low=65536 high=8388608
under_ulimit "$high" --num_epochs=0 >/dev/null 2>&1 || fail "R20 is refused under 8 GB of address space"
while [ $((high - low)) -gt 1024 ]; do
  middle=$(((low + high) / 2))
  if under_ulimit "$middle" --num_epochs=0 >/dev/null 2>&1; then high=$middle; else low=$middle; fi
done
echo "the plan accepts R20 from ulimit -v $high"
# Just below: refused before the first step, in one line naming the room left.
expect_error 1 "is available" under_ulimit "$low" --num_epochs=1
grep -qE '^train: error: 1 core x batch 8 need [0-9.]+ MB; [0-9.]+ MB is available' \
  "$dir/expect.err" || fail "unexpected error line under ulimit -v $low"
# At the bound and above it, the run the plan accepted ends well: threads that would reserve
# address space of their own (malloc's arenas) do not take what the plan counted on.
for extra in 0 4096 65536 262144; do
  under_ulimit $((high + extra)) --num_epochs=1 >"$dir/ulimit.log" 2>&1 ||
    { cat "$dir/ulimit.log"; fail "R20 failed under ulimit -v $((high + extra)), which the plan accepted"; }
done
# Far too little: the libraries cannot load (the dynamic loader's exit 127, before any of train
# runs), or their initializers or the plan run out: one error line and exit 1, never exit 134.
for ((kb = 65536; kb < high; kb += 4096)); do
  under_ulimit "$kb" --num_epochs=1 >"$dir/out" 2>"$dir/err"
  code=$?
  case "$code" in
    127) grep -q "error while loading shared libraries" "$dir/err" || { cat "$dir/err"; fail "exit 127 under ulimit -v $kb"; } ;;
    1) [ "$(wc -l <"$dir/err")" -eq 1 ] && grep -qE "^train: error: .*(out of memory|is available)" "$dir/err" &&
         [ ! -s "$dir/out" ] || { cat "$dir/out" "$dir/err"; fail "ulimit -v $kb: not one error line"; } ;;
    *) cat "$dir/err"; fail "ulimit -v $kb: exit $code" ;;
  esac
  echo "ulimit -v $kb: exit $code: $(head -c 150 "$dir/err")"
done
echo "PASS"
