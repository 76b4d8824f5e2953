#!/usr/bin/env bash
# A job whose processes were given different settings (mpirun's "-np 1 A : -np 1 B" starts two
# command lines) refuses to start: one line naming the flag and the ranks, exit 1, before any
# collective meets gradients of another length. A flag error under scripts/train_dist is said
# once for the job, not once per process.
set -uo pipefail
train="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect_error.bash"

run=(--model=resnet20 --fake_data --image_size=16 --batch_size=4 --num_cores=1 --num_epochs=1
     --num_steps=2 --num_test_steps=1)
# job A B [ENV_OF_B]: rank 0 given A, rank 1 given B (and the variable ENV_OF_B=...).
job() {
  local second=(-np 1)
  [ -z "${3:-}" ] || second+=(-x "$3")
  mpirun --allow-run-as-root --quiet --oversubscribe -np 1 "$train" "${run[@]}" "$1" : \
    "${second[@]}" "$train" "${run[@]}" "$2"
}
disagree="train: error: the job's processes disagree on"
expect_error 1 "$disagree --lr: rank 0 has 0.1, rank 1 has 0.2" job --lr=0.1 --lr=0.2
expect_error 1 "$disagree --seed: rank 0 has 1, rank 1 has 2" job --seed=1 --seed=2
expect_error 1 "$disagree --model: rank 0 has resnet20, rank 1 has resnet32" \
  job --model=resnet20 --model=resnet32
expect_error 1 "$disagree --num_steps: rank 0 has 2, rank 1 has 3" job --num_steps=2 --num_steps=3
expect_error 1 "$disagree --logdir: rank 0 has $dir/a, rank 1 has $dir/b" \
  job --logdir="$dir/a" --logdir="$dir/b"
[ ! -e "$dir/a" ] && [ ! -e "$dir/b" ] || fail "a refused job created its logdir"
expect_error 1 "$disagree --bf16 (or XLA_USE_BF16): rank 0 has false, rank 1 has true" \
  job --seed=1 --seed=1 XLA_USE_BF16=1
# Settings of one machine may differ, and spellings of one value do.
job --num_workers=1 --num_workers=2 >"$dir/same.out" 2>"$dir/same.err" ||
  { cat "$dir/same.err"; fail "a job differing in --num_workers only did not run"; }
job --lr=0.1 --lr=1e-1 >"$dir/same.out" 2>"$dir/same.err" ||
  { cat "$dir/same.err"; fail "--lr=0.1 and --lr=1e-1 were taken for different settings"; }

# A flag error under train_dist: every process refuses it, the job says it once, exit 2.
source "$(dirname "${BASH_SOURCE[0]}")/lib/train_dist.bash"
train_dist --nproc_per_node=2 --oversubscribe -- --fake_data --lr=-1 >"$dir/flag.out" \
  2>"$dir/flag.err"
code=$?
[ "$code" -eq 2 ] ||
  { cat "$dir/flag.err"; fail "a bad --lr under train_dist: exit $code, expected 2"; }
[ "$(grep -v '^train_dist: mpirun ' "$dir/flag.err")" = \
  "train: error: --lr: expected a finite number >= 0, got '-1'" ] ||
  { cat "$dir/flag.err"; fail "a flag error under train_dist is not said once"; }
echo "PASS"
