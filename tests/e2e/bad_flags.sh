#!/usr/bin/env bash
# Bad input, as a hostile user types it: one line on stderr naming the flag, a non-zero exit
# below 128 (2 for a flag, 1 for a file), no stack trace, no output, no logdir left behind, and
# every check before any work. Values that overflow their type or are not finite, "--flag=" with
# nothing after it, checkpoints whose metadata lies, and paths that are not UTF-8.
set -uo pipefail
train="$1"
predict="$(dirname "$train")/predict"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect_error.bash"

expect_rejected() {  # FLAG_NAME ARGS...
  local flag="$1"
  shift
  timeout 60 "$train" "$@" >"$dir/out" 2>"$dir/err"
  local code=$?
  [ "$code" -ne 0 ] || fail "'$*' exited 0"
  [ "$code" -lt 128 ] || { cat "$dir/err"; fail "'$*' exited $code: a crash, a signal or a hang"; }
  [ "$(wc -l <"$dir/err")" -eq 1 ] || { cat "$dir/err"; fail "'$*': expected one line on stderr"; }
  grep -q -- "$flag" "$dir/err" || { cat "$dir/err"; fail "'$*': the error does not name $flag"; }
  grep -qiE "terminate|abort|exception|what\(\)" "$dir/err" && fail "'$*': looks like a crash"
  [ ! -s "$dir/out" ] || fail "'$*' printed to stdout"
  echo "ok: $* -> $(cat "$dir/err")"
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
expect_rejected --lr_scheduler --fake_data --lr_scheduler=cosine
expect_rejected --model_ema_steps --fake_data --model_ema --model_ema_steps=0
expect_rejected --model_ema_steps --fake_data --model_ema --model_ema_steps=99999999999
expect_rejected --model_ema_decay --fake_data --model_ema --model_ema_decay=1
expect_rejected --model_ema_decay --fake_data --model_ema --model_ema_decay=nan
expect_rejected --model_ema --fake_data --model_ema_decay=0.999
expect_rejected --model_ema --fake_data --model_ema --num_epochs=0
expect_rejected --lr_milestones --fake_data --lr_scheduler=multisteplr --lr_milestones=225,150
expect_rejected --lr_scheduler_type --fake_data --lr_scheduler=steplr --lr_scheduler_type=none
expect_rejected --lr_warmup_epochs --fake_data --lr_scheduler=cosineannealinglr --num_epochs=5 --lr_warmup_epochs=5
expect_rejected --num_cores --fake_data --num_cores=0
expect_rejected --evaluate --fake_data --evaluate
expect_rejected --resume --fake_data --resume=auto
expect_rejected --pretrained --fake_data --model=resnet20 --pretrained=/nonexistent.safetensors
expect_rejected --fake_data --model=resnet18
expect_rejected --fake_images --fake_data --fake_images=gauss
expect_rejected --fake_images --datadir=/nonexistent --fake_images=noise

# Values that are not finite, do not fit the flag's type or cannot work: refused as flags (exit
# 2), before the logdir exists. --num_epochs=0 makes a run that accepts them end at once.
quick=(--fake_data --model=resnet20 --num_epochs=0 --num_cores=1)
for bad in --lr=inf --lr=1e39 --momentum=nan --weight_decay=inf --label_smoothing=nan \
           --num_warmup_epochs=inf --lr_scheduler_divisor=inf --target_accuracy=nan \
           --target_accuracy=101 --num_steps=9223372036854775808 --num_epochs=2147483648 \
           --batch_size=1e10 --seed=-1 --lr=0x10 --lr=1e-400 --momentum=1e-45 --bf16=2 \
           --bf16=yes --auto_augment=randaugment --random_erase=1.5 --random_erase=nan \
           --ra_magnitude=31 --augmix_severity=0; do
  expect_error 2 "${bad%%=*}: expected" "$train" "${quick[@]}" --logdir="$dir/logdir" "$bad"
  [ ! -e "$dir/logdir" ] || fail "$bad: the logdir was created"
done
# torchvision's reference train.py spellings: a recipe for a model train lacks is refused as that
# first, then the flags train lacks, all in one line; a torch.save file is refused by name; and
# its spellings of train's flags run.
expect_error 2 "--model: expected one of alexnet, " "$train" --data-path "$dir/imagenet" \
  --model vit_b_16 --batch-size 128 --opt adamw --mixup-alpha 0.2 --model-ema
expect_error 2 "--backend, --use-v2: not supported yet" "$train" "${quick[@]}" \
  --logdir="$dir/logdir" --sync-bn --backend PIL --use-v2
[ ! -e "$dir/logdir" ] || fail "--backend: the logdir was created"
expect_error 2 "--resume: checkpoint.pth is a PyTorch pickle" "$train" "${quick[@]}" \
  --resume checkpoint.pth
expect_error 2 "--num_epochs=0 and --epochs=3 are one flag" "$train" "${quick[@]}" --epochs 3
"$train" --fake-data --model resnet20 --epochs 0 -b 2 -j 1 --num-cores 1 --lr-scheduler steplr \
  --label-smoothing 0.1 --amp >"$dir/out" 2>&1 || { cat "$dir/out"; fail "torchvision's spellings"; }
echo "ok: torchvision's spellings"

# "--model=" is an empty model name, not "--model" followed by the next flag as its value.
expect_error 2 "--model: expected one of alexnet, " "$train" "${quick[@]}" --model= --num_steps=1
expect_error 2 "--logdir: expected a path, got ''" "$train" "${quick[@]}" --logdir= --resume=auto


# Paths that are not UTF-8 (or hold a newline) are fine: the run works and records them
# escaped as valid JSON ("\xff"), in summary.json and in the checkpoints' metadata.
odd=$'nu\xff'
missing=$'no\xffdir\nhere'
expect_error 1 '--datadir no\xffdir\x0ahere: no such folder' "$train" --model=resnet20 \
  --num_epochs=0 --datadir="$missing"
mkdir -p "$dir/$odd/train/a" "$dir/$odd/train/b" "$dir/$odd/val/a" "$dir/$odd/val/b"
for f in "$dir/$odd"/{train,val}/{a,b}/x.pgm; do printf 'P5\n1 1\n255\n\x80' >"$f"; done
logdir="$dir/log$odd"
"$train" --model=resnet20 --datadir="$dir/$odd" --logdir="$logdir" --profile="$dir/p$odd.json" \
  --image_size=8 --batch_size=2 --test_set_batch_size=2 --num_epochs=1 --num_cores=1 \
  >"$dir/out" 2>&1 || { cat "$dir/out"; fail "non-UTF-8 paths stopped the run"; }
recorded="$(jq -r '.flags.argv[1]' "$logdir/summary.json")" || fail "summary.json is not JSON"
[ "$recorded" = '--datadir='"$dir"'/nu\xff' ] || fail "summary.json records $recorded"
checkpoint="$logdir/checkpoint-last.safetensors"
header_size="$(od -An -tu8 -N8 "$checkpoint" | tr -d ' ')"
flags="$(tail -c +9 "$checkpoint" | head -c "$header_size" | jq -r '.__metadata__.flags')"
[ "$(jq -r '.argv[2]' <<<"$flags")" = '--logdir='"$dir"'/lognu\xff' ] ||
  fail "the checkpoint's metadata records flags $flags"
echo "ok: non-UTF-8 paths train and are recorded escaped"

# Checkpoints whose metadata does not fit the run: one line, at once (a huge global_step was
# replayed step by step before it was checked), naming --resume once.
run=(--fake_data --model=resnet20 --num_classes=10 --image_size=8 --batch_size=2
     --test_set_batch_size=2 --num_test_steps=1 --num_cores=1)
"$train" "${run[@]}" --num_steps=1 --num_epochs=1 --logdir="$dir/run" >"$dir/out" 2>&1 ||
  { cat "$dir/out"; fail "the checkpoint run failed"; }
good="$dir/run/checkpoint-last.safetensors"
# with_metadata KEY VALUE OUT: a copy of $good with __metadata__.KEY = VALUE.
with_metadata() {
  local LC_ALL=C size header  # C: ${#header} counts bytes
  size="$(od -An -tu8 -N8 "$good" | tr -d ' ')"
  header="$(tail -c +9 "$good" | head -c "$size" | jq -c --arg v "$2" ".__metadata__.$1 = \$v")"
  while [ $(( ${#header} % 8 )) -ne 0 ]; do header+=" "; done
  { for i in 0 1 2 3 4 5 6 7; do printf "\\x$(printf %02x $(( ${#header} >> (8 * i) & 255 )))"; done
    printf '%s' "$header"
    tail -c +$(( 9 + size )) "$good"; } >"$3"
}
# expect_resume_error TEXT FILE ARGS...: resuming from FILE fails at once in one line that says
# TEXT and names --resume once.
expect_resume_error() {
  local text="$1" file="$2"
  shift 2
  expect_error 1 "$text" timeout 60 "$train" "${run[@]}" "$@" --resume="$file"
  [ "$(grep -o -- "--resume:" "$dir/expect.err" | wc -l)" -eq 1 ] || fail "--resume: printed twice"
}
with_metadata global_step 1000000000000000 "$dir/huge_step.safetensors"
expect_resume_error "--resume: $dir/huge_step.safetensors was saved after 1000000000000000 steps" \
  "$dir/huge_step.safetensors" --num_steps=1 --num_epochs=2
with_metadata epoch 1000000000000 "$dir/huge_epoch.safetensors"
expect_resume_error "epoch 1000000000000 is past the last epoch" "$dir/huge_epoch.safetensors" \
  --num_steps=1 --num_epochs=2
with_metadata best_top1 250 "$dir/best.safetensors"
expect_resume_error "best_top1 is 250, not a percentage" "$dir/best.safetensors" --num_steps=1 \
  --num_epochs=1
expect_resume_error "does not fit 2 steps per epoch" "$good" --num_steps=2 --num_epochs=2

# predict: class names are attached by index, so --classes must name exactly the model's
# outputs; paths that are not UTF-8 are classified.
mkdir -p "$dir/three/a" "$dir/three/b" "$dir/three/c"
image="$dir/$odd/val/a/x.pgm"
expect_error 1 "--classes=$dir/three names 3 classes but the model has 10 outputs" \
  "$predict" --checkpoint="$good" --model=resnet20 --image_size=8 --classes="$dir/three" "$image"
"$predict" --checkpoint="$good" --model=resnet20 --image_size=8 "$image" >"$dir/out" ||
  fail "predict on a non-UTF-8 path failed"
jq -e .top_k "$dir/out" >/dev/null || fail "predict printed no JSON for a non-UTF-8 path"
# XLA_USE_BF16 takes what --bf16 takes, and an explicit --bf16 wins over it.
expect_error 2 "XLA_USE_BF16: expected 1, 0, true or false, got '2'" \
  env XLA_USE_BF16=2 "$train" "${quick[@]}"
XLA_USE_BF16=1 "$train" "${quick[@]}" --bf16=false >"$dir/out" || fail "--bf16=false failed"
grep -qE '^Model resnet20: .*, float32$' "$dir/out" || { cat "$dir/out"; fail "--bf16=false lost"; }
echo "PASS"
