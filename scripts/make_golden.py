#!/usr/bin/env python3
"""Writes tests/golden/<model>.json: what PyTorch computes for a few models whose weights and
inputs are set by formula, so tests/models/golden_test.cpp can check xtrain against it without
PyTorch. Needs python3-torch and python3-torchvision (Debian), for this script only.

The formulas (mirrored in golden_test.cpp), over each tensor's PyTorch (NCHW / OIHW) flat index i,
with u(i, k) uniform in [-1, 1) from an integer hash (exact in both languages):
  conv weight [O, I, KH, KW]  sqrt(3) * sqrt(2 / (O * KH * KW)) * u(i, k)   (kaiming's variance)
  BatchNorm weight / bias     1 + 0.2 * u(i, k) / 0.1 * u(i, k)
  Linear weight [K, F]        u(i, k) / sqrt(F)
  any other bias              0.1 * u(i, k)
  image [N, 3, S, S]          u(i, 1000);  labels (3 * n + 1) % K
where k = (sum of the name's character codes) % 97. Hashed values, unlike smooth ones such as
sin(i), keep the network as well-conditioned as a randomly initialized one, so float32 rounding
stays far below the tolerances. Dropout layers drop what xtrain's do for the step keys in
STEP_KEYS (lib/kernels/dropout.h's mask, reproduced here), and StochasticDepth layers the samples
xtrain's do (the same hash over sample indices), so both runs see the same masks. A tensor t is
summarised as [sum_i t_i * cos(0.11 * i), sum_i |t_i|]: the weighting catches a wrong layout,
which a plain sum would not.

Usage: scripts/make_golden.py [OUT_DIR [MODEL...]]   (default tests/golden, every model)
       scripts/make_golden.py --bf16 [OUT_DIR [MODEL...]]   (default resnet50)
--bf16 writes <model>_bf16.json instead, for tests/models/golden_bf16_test.cpp: the losses and
step-0 logits of the same two steps with the forward and loss under PyTorch's CPU autocast to
bfloat16 (golden_bf16() says which runs and why).
"""
import functools
import json
import math
import os
import sys

import torch
import torch.nn.functional as F
import torchvision

from torch_cifar_resnet import CifarResNet

BATCH = 4
LR, MOMENTUM, WEIGHT_DECAY = 0.01, 0.9, 1e-4


def name_key(name):
    return sum(ord(ch) for ch in name) % 97


def hashed_uniform(n, k):
    """u(i, k) for i in [0, n): a 32-bit integer hash of (i, k) mapped to [-1, 1)."""
    mask = 0xFFFFFFFF
    h = (torch.arange(n, dtype=torch.int64) * 2654435761 + k * 40503 + 12345) & mask
    h = h ^ (h >> 16)
    h = (h * 0x45D9F3B) & mask
    h = h ^ (h >> 16)
    return h.double() / 2.0**31 - 1.0


def formula_value(name, shape):
    u = hashed_uniform(math.prod(shape), name_key(name))
    if len(shape) == 2:
        v = u / math.sqrt(shape[1])
    elif len(shape) == 4:
        fan_out = shape[0] * shape[2] * shape[3]
        v = math.sqrt(3.0) * math.sqrt(2.0 / fan_out) * u
    elif name.endswith(".weight"):
        v = 1.0 + 0.2 * u
    else:
        v = 0.1 * u
    return v.reshape(shape).float()


STEP_KEYS = (0x5EED0001, 0x5EED0002)  # the golden test's step key for its two training steps


def fmix32(h):
    """murmur3's 32-bit finalizer over int64 tensors or ints holding uint32 values."""
    mask = 0xFFFFFFFF
    h = h ^ (h >> 16)
    h = (h * 0x85EBCA6B) & mask
    h = h ^ (h >> 13)
    h = (h * 0xC2B2AE35) & mask
    return h ^ (h >> 16)


def fnv1a32(name):
    h = 2166136261
    for byte in name.encode():
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return h


def dropout_keep(name, step_key, n, p):
    """xtrain's mask over n elements in its (NHWC) order: True where the element is kept."""
    key = fmix32(step_key ^ fnv1a32(name))
    i = torch.arange(n, dtype=torch.int64)
    return fmix32((key + i * 0x9E3779B1) & 0xFFFFFFFF) >= int(p * 2.0**32)


class GoldenDropout(torch.nn.Module):
    """nn.Dropout with xtrain's mask for the current step (set through .step_key)."""

    def __init__(self, name, p):
        super().__init__()
        self.name, self.p, self.step_key = name, p, None

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        nhwc = x.permute(0, 2, 3, 1) if x.dim() == 4 else x
        keep = dropout_keep(self.name, self.step_key, x.numel(), self.p).reshape(nhwc.shape)
        if x.dim() == 4:
            keep = keep.permute(0, 3, 1, 2)
        return x * keep.to(x.dtype) / (1 - self.p)


class GoldenStochasticDepth(torch.nn.Module):
    """torchvision.ops.StochasticDepth(p, "row") with xtrain's mask for the current step (set
    through .step_key): lib/kernels/stochastic_depth.h's hash over the sample's index (the golden
    test runs the whole batch on one plan under this key), each kept sample multiplied by
    1 / (1 - p) in the run's dtype as torchvision's noise.div_."""

    def __init__(self, name, p):
        super().__init__()
        self.name, self.p, self.step_key = name, p, None

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        keep = dropout_keep(self.name, self.step_key, x.shape[0], self.p)
        noise = keep.to(x.dtype).div_(1.0 - self.p)
        return x * noise.reshape([x.shape[0]] + [1] * (x.dim() - 1))


def with_golden_dropouts(model):
    """Dropout and StochasticDepth modules replaced by their xtrain-masked twins."""
    for name, module in list(model.named_modules()):
        golden = {torch.nn.Dropout: GoldenDropout,
                  torchvision.ops.StochasticDepth: GoldenStochasticDepth}.get(type(module))
        if golden is not None:
            parent_name, _, child = name.rpartition(".")
            parent = model.get_submodule(parent_name) if parent_name else model
            setattr(parent, child, golden(name, module.p))
    return model


def bfloat16_rounded(t):
    """t's float32 value rounded to the nearest bfloat16 (ties to even), in t's dtype."""
    return t.float().to(torch.bfloat16).to(t.dtype)


class RoundedOperand(torch.autograd.Function):
    """Rounds to bfloat16 going forward; the gradient passes as it is."""

    @staticmethod
    def forward(ctx, t):
        return bfloat16_rounded(t)

    @staticmethod
    def backward(ctx, dt):
        return dt


class RoundedGradient(torch.autograd.Function):
    """Passes forward as it is; the gradient is rounded to bfloat16 going backward."""

    @staticmethod
    def forward(ctx, t):
        return t

    @staticmethod
    def backward(ctx, dt):
        return bfloat16_rounded(dt)


def rounded_conv2d(conv, x):
    y = conv._conv_forward(RoundedOperand.apply(x), RoundedOperand.apply(conv.weight), None)
    y = RoundedGradient.apply(y)
    return y if conv.bias is None else y + conv.bias.reshape(1, -1, 1, 1)


def rounded_linear(linear, x):
    y = F.linear(RoundedOperand.apply(x), RoundedOperand.apply(linear.weight))
    y = RoundedGradient.apply(y)
    return y if linear.bias is None else y + linear.bias


def with_bfloat16_operands(model):
    """xtrain's --bf16 on PyTorch: convolutions and Linear layers multiply bfloat16-rounded
    operands (x and weight forward; dy with weight, and x with dy, backward) and sum in the run's
    dtype; biases, activations, BatchNorm and the loss keep the run's precision."""
    for module in model.modules():
        if isinstance(module, torch.nn.Conv2d):
            module.forward = functools.partial(rounded_conv2d, module)
        elif isinstance(module, torch.nn.Linear):
            module.forward = functools.partial(rounded_linear, module)
    return model


def summary(t):
    flat = t.detach().double().flatten()
    weights = torch.cos(0.11 * torch.arange(flat.numel(), dtype=torch.float64))
    return [float((flat * weights).sum()), float(flat.abs().sum())]


def set_formula_parameters(model):
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(formula_value(name, tuple(p.shape)))


def write_json(path, result):
    """Whole or not at all: a run stopped midway leaves no file under the real name."""
    with open(path + ".tmp", "w") as f:
        json.dump(result, f, indent=1)
    os.replace(path + ".tmp", path)
    print(f"wrote {path}")


def run(model, name, num_classes, side, dtype, memory_format=torch.contiguous_format,
        autocast=False):
    """Two SGD steps, then an eval-mode forward; `autocast`: the forwards and the loss under
    torch.autocast("cpu", dtype=torch.bfloat16), PyTorch's CPU mixed precision."""
    model = with_golden_dropouts(model)
    set_formula_parameters(model)
    model = model.to(dtype).to(memory_format=memory_format)
    initial = {n: p.detach().clone() for n, p in model.named_parameters()}
    images = hashed_uniform(BATCH * 3 * side * side, 1000).reshape(BATCH, 3, side, side)
    images = images.float().to(dtype).contiguous(memory_format=memory_format)
    labels = torch.tensor([(3 * n + 1) % num_classes for n in range(BATCH)])
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM,
                                weight_decay=WEIGHT_DECAY)
    model.train()
    out = {"model": name, "num_classes": num_classes, "image_size": side, "batch": BATCH,
           "lr": LR, "momentum": MOMENTUM, "weight_decay": WEIGHT_DECAY, "losses": []}
    for step in range(2):
        optimizer.zero_grad()
        for module in model.modules():
            if isinstance(module, (GoldenDropout, GoldenStochasticDepth)):
                module.step_key = STEP_KEYS[step]
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            logits = model(images)
            loss = F.cross_entropy(logits, labels)
        loss.backward()
        out["losses"].append(float(loss))
        if step == 0:
            out["logits"] = logits.detach().flatten().tolist()
            out["grads"] = {n: summary(p.grad) for n, p in model.named_parameters()}
        optimizer.step()
    out["updates"] = {n: summary(p.detach() - initial[n]) for n, p in model.named_parameters()}
    out["buffers"] = {n: summary(b) for n, b in model.named_buffers()
                      if not n.endswith("num_batches_tracked")}
    model.eval()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
        out["eval_logits"] = model(images).flatten().tolist()
    return out


def golden(make_model, name, num_classes, side):
    """The float64 run is the reference. How far PyTorch's own float32 runs (NCHW and NHWC, which
    round differently) land from it, per tensor, tells the test how much rounding to allow: a
    BatchNorm's weight and bias gradients are sums that nearly cancel, so ordinary float32
    rounding moves them by up to ~1e-3 of their size in the deeper models."""
    exact = run(make_model(), name, num_classes, side, torch.float64)
    singles = [run(make_model(), name, num_classes, side, torch.float32, memory_format)
               for memory_format in (torch.contiguous_format, torch.channels_last)]
    for key in ("grads", "updates", "buffers"):
        exact[key + "_float32_error"] = {
            n: max(abs(a - b) for single in singles for a, b in zip(single[key][n], v)) /
            max(v[1], 1e-30)
            for n, v in exact[key].items()}
    for key in ("losses", "logits", "eval_logits"):
        exact[key + "_float32_error"] = max(
            abs(a - b) for single in singles for a, b in zip(single[key], exact[key])) / max(
                abs(v) for v in exact[key])
    return exact


def golden_bf16(make_model, name, num_classes, side):
    """The reference is autocast in channels_last on one thread: PyTorch's CPU guidance runs
    bfloat16 in channels_last (oneDNN's bfloat16 convolutions are NHWC, as xtrain's activations
    are). The network amplifies rounding ~160-fold by the logits, so which values round which way
    (the layout, the threads' summation order) moves bfloat16 losses by several 1e-2. The other runs
    show how far apart bfloat16 runs land, for the test's tolerances: autocast in NCHW, and
    xtrain's rounding points (with_bfloat16_operands) summed in float32 and in float64, each on
    1 and 2 threads. Only the losses and step-0 logits are kept."""
    with_rounding = lambda: with_bfloat16_operands(make_model())
    setups = {  # label: make the model, dtype, memory format, autocast
        "autocast_channels_last": (make_model, torch.float32, torch.channels_last, True),
        "autocast_nchw": (make_model, torch.float32, torch.contiguous_format, True),
        "xtrain_rounding_float32": (with_rounding, torch.float32, torch.contiguous_format, False),
        "xtrain_rounding_float64": (with_rounding, torch.float64, torch.contiguous_format, False),
    }
    runs = {}
    for threads in (1, 2):
        torch.set_num_threads(threads)
        for label, (make, dtype, memory_format, autocast) in setups.items():
            runs[f"{label}/threads={threads}"] = run(make(), name, num_classes, side, dtype,
                                                     memory_format, autocast)
    out = runs.pop("autocast_channels_last/threads=1")
    for key in ("grads", "updates", "buffers", "eval_logits"):
        del out[key]
    out["other_runs"] = {label: {"losses": r["losses"], "logits": r["logits"]}
                         for label, r in runs.items()}
    return out


def main():
    bf16 = sys.argv[1:2] == ["--bf16"]
    args = sys.argv[2:] if bf16 else sys.argv[1:]
    out_dir = args[0] if args else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden")
    models = [
        ("resnet18", lambda: torchvision.models.resnet18(num_classes=10), 10, 64),
        ("resnet50", lambda: torchvision.models.resnet50(num_classes=10), 10, 96),
        ("resnet20", lambda: CifarResNet(20, 10), 10, 16),
        ("resnext50_32x4d", lambda: torchvision.models.resnext50_32x4d(num_classes=10), 10, 96),
        ("wide_resnet50_2", lambda: torchvision.models.wide_resnet50_2(num_classes=10), 10, 64),
        ("vgg11_bn", lambda: torchvision.models.vgg11_bn(num_classes=10), 10, 64),
        ("alexnet", lambda: torchvision.models.alexnet(num_classes=10), 10, 159),
        ("squeezenet1_1", lambda: torchvision.models.squeezenet1_1(num_classes=10), 10, 50),
        ("densenet121", lambda: torchvision.models.densenet121(num_classes=10), 10, 64),
        ("inception_v3", lambda: torchvision.models.inception_v3(
            num_classes=10, aux_logits=False, init_weights=False), 10, 75),  # 75: its smallest
        ("mobilenet_v2", lambda: torchvision.models.mobilenet_v2(num_classes=10), 10, 64),
        ("mobilenet_v3_small",
         lambda: torchvision.models.mobilenet_v3_small(num_classes=10), 10, 64),
        ("efficientnet_b0", lambda: torchvision.models.efficientnet_b0(num_classes=10), 10, 64),
        ("googlenet", lambda: torchvision.models.googlenet(
            num_classes=10, aux_logits=False, init_weights=False), 10, 64),
        ("shufflenet_v2_x0_5", lambda: torchvision.models.shufflenet_v2_x0_5(num_classes=10),
         10, 64),
        ("mnasnet0_5", lambda: torchvision.models.mnasnet0_5(num_classes=10), 10, 64),
        ("regnet_x_400mf", lambda: torchvision.models.regnet_x_400mf(num_classes=10), 10, 64),
        ("regnet_y_400mf", lambda: torchvision.models.regnet_y_400mf(num_classes=10), 10, 64),
        ("convnext_tiny", lambda: torchvision.models.convnext_tiny(num_classes=10), 10, 64),
    ]
    only = args[1:] or (["resnet50"] if bf16 else [])  # model names: write only these
    models = [m for m in models if not only or m[0] in only]
    make_golden, suffix = (golden_bf16, "_bf16") if bf16 else (golden, "")
    for name, make_model, num_classes, side in models:
        path = os.path.join(out_dir, f"{name}{suffix}.json")
        write_json(path, make_golden(make_model, name, num_classes, side))  # minutes each


if __name__ == "__main__":
    main()
