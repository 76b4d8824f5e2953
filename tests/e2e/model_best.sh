#!/usr/bin/env bash
# model_best.safetensors as a torchvision user loads it: exactly torchvision's state_dict (names
# and shapes of resnet18, no optimizer state), so that load_state_dict's strict default takes it
# in PyTorch (checked when this machine has Debian's python3-torch and python3-torchvision,
# skipped otherwise); checkpoints keep the momentum for resuming. predict and --pretrained take
# model_best; --resume refuses it in one line that says where to resume from.
set -uo pipefail
train="$1"
predict="$(dirname "$train")/predict"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect_error.bash"

# resnet18 with its 1000 classes (--fake_data's default), as torchvision builds it.
args=(--model=resnet18 --fake_data --image_size=32 --batch_size=2 --test_set_batch_size=2
      --num_steps=1 --num_test_steps=1 --num_cores=1)
"$train" "${args[@]}" --num_epochs=1 --logdir="$dir/run" >"$dir/train.log" 2>&1 ||
  { cat "$dir/train.log"; fail "train failed"; }
best="$dir/run/model_best.safetensors"
[ -f "$best" ] || fail "no model_best"

# The safetensors header (an 8-byte little-endian length, then JSON): its tensors' names and
# shapes against torchvision's, and the checkpoint's momentum.
cat >"$dir/keys.py" <<'PY'
import json, struct, sys
def header(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        return {k: v for k, v in json.loads(f.read(n)).items() if k != "__metadata__"}
best, last, golden = sys.argv[1:4]
torchvision = {name: shape for name, shape in json.load(open(golden))["resnet18"]}
ours = {name: t["shape"] for name, t in header(best).items()}
extra, missing = sorted(set(ours) - set(torchvision)), sorted(set(torchvision) - set(ours))
assert not extra and not missing, f"model_best: unexpected {extra[:3]}, missing {missing[:3]}"
assert ours == torchvision, "model_best: shapes differ from torchvision's"
momentum = [k for k in header(last) if k.startswith("optimizer.momentum_buffer.")]
assert len(momentum) == 62, f"checkpoint-last holds {len(momentum)} momentum buffers, not 62"
PY
python3 "$dir/keys.py" "$best" "$dir/run/checkpoint-last.safetensors" \
  "$root/tests/golden/state_dict_keys.json" || fail "model_best is not resnet18's state_dict"
echo "ok: model_best holds torchvision's 122 resnet18 keys alone"

# As a torchvision user writes it (without the safetensors package, which Debian lacks: the
# file read by hand).
if /usr/bin/python3 -c "import torch, torchvision" 2>/dev/null; then
  cat >"$dir/strict.py" <<'PY'
import json, struct, sys
import torch, torchvision
with open(sys.argv[1], "rb") as f:
    (n,) = struct.unpack("<Q", f.read(8))
    header = json.loads(f.read(n))
    data = f.read()
dtypes = {"F32": torch.float32, "I64": torch.int64}
state_dict = {
    name: torch.frombuffer(bytearray(data[t["data_offsets"][0]:t["data_offsets"][1]]),
                           dtype=dtypes[t["dtype"]]).reshape(t["shape"])
    for name, t in header.items() if name != "__metadata__"}
model = torchvision.models.resnet18()
model.load_state_dict(state_dict)  # strict, PyTorch's default
model.eval()
assert torch.isfinite(model(torch.zeros(1, 3, 32, 32))).all()
PY
  /usr/bin/python3 "$dir/strict.py" "$best" || fail "PyTorch's strict load_state_dict refused model_best"
  echo "ok: torchvision's resnet18 loads model_best strictly"
else
  echo "skip: no python3-torch and python3-torchvision here: PyTorch's strict load not tried"
fi

expect_error 1 "train: error: --resume: $best holds a model's weights alone, no optimizer state: to go on with a run, resume from its checkpoint-last.safetensors" \
  "$train" "${args[@]}" --num_epochs=2 --resume="$best"
"$train" "${args[@]}" --evaluate --pretrained="$best" >"$dir/eval.log" 2>&1 ||
  { cat "$dir/eval.log"; fail "--pretrained=model_best failed"; }
printf 'P6\n32 32\n255\n' >"$dir/image.ppm"
head -c $((32 * 32 * 3)) /dev/urandom >>"$dir/image.ppm"
"$predict" --checkpoint="$best" --model=resnet18 --image_size=32 "$dir/image.ppm" \
  >"$dir/predict.jsonl" 2>"$dir/predict.err" || { cat "$dir/predict.err"; fail "predict failed"; }
[ "$(wc -l <"$dir/predict.jsonl")" -eq 1 ] || fail "predict gave no line for the image"
echo "ok: --pretrained and predict take model_best; --resume refuses it"
echo "PASS"
