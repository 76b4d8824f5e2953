#!/usr/bin/env bash
# Bad input: one line on stderr naming the flag, a non-zero exit, no stack trace, no output.
set -uo pipefail
train="$1"
err="$(mktemp)"
out="$(mktemp)"
trap 'rm -f "$err" "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

expect_rejected() {  # FLAG_NAME ARGS...
  local flag="$1"
  shift
  "$train" "$@" >"$out" 2>"$err"
  local code=$?
  [ "$code" -ne 0 ] || fail "'$*' exited 0"
  [ "$(wc -l <"$err")" -eq 1 ] || { cat "$err"; fail "'$*': expected one line on stderr"; }
  grep -q -- "$flag" "$err" || { cat "$err"; fail "'$*': the error does not name $flag"; }
  grep -qiE "terminate|abort|exception|what\(\)" "$err" && fail "'$*': looks like a crash"
  [ ! -s "$out" ] || fail "'$*' printed to stdout"
  echo "ok: $* -> $(cat "$err")"
}

expect_rejected --no_such_flag --fake_data --no_such_flag
expect_rejected --model --fake_data --model=resnet51
expect_rejected --batch_size --fake_data --batch_size=0
expect_rejected --batch_size --fake_data --batch_size=-3
expect_rejected --batch_size --fake_data --batch_size=abc
expect_rejected --image_size --fake_data --image_size=0
expect_rejected --image_size --fake_data --image_size=-1
expect_rejected --lr --fake_data --lr=fast
expect_rejected --num_classes --fake_data --num_classes=0
expect_rejected --log_steps --fake_data --log_steps=0
expect_rejected --lr_scheduler_type --fake_data --model=resnet18 --lr_scheduler_type=cosine --num_epochs=1
expect_rejected --num_cores --fake_data --num_cores=0
expect_rejected --evaluate --fake_data --evaluate
expect_rejected --resume --fake_data --resume=auto
expect_rejected --pretrained --fake_data --model=resnet20 --pretrained=/nonexistent.safetensors
expect_rejected --fake_data --model=resnet18
echo "PASS"
