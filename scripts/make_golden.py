#!/usr/bin/env python3
"""Writes tests/golden/<model>.json: what PyTorch computes for a few models whose weights and
inputs are set by formula, so tests/models/golden_test.cpp can check xtrain against it without
PyTorch. Needs python3-torch and python3-torchvision (Debian), for this script only.

The formulas (mirrored in golden_test.cpp), over each tensor's PyTorch (NCHW / OIHW) flat index i,
with u(i, k) uniform in [-1, 1) from an integer hash (exact in both languages):
  conv weight [O, I, KH, KW]  sqrt(3) * sqrt(2 / (O * KH * KW)) * u(i, k)   (kaiming's variance)
  BatchNorm weight / bias     1 + 0.2 * u(i, k) / 0.1 * u(i, k)
  fc weight [K, F] / bias     u(i, k) / sqrt(F) / 0.1 * u(i, k)
  image [N, 3, S, S]          u(i, 1000);  labels (3 * n + 1) % K
where k = (sum of the name's character codes) % 97. Hashed values, unlike smooth ones such as
sin(i), keep the network as well-conditioned as a randomly initialized one, so float32 rounding
stays far below the tolerances. A tensor t is summarised as
[sum_i t_i * cos(0.11 * i), sum_i |t_i|]: the weighting catches a wrong layout, which a plain
sum would not.

Usage: scripts/make_golden.py [OUT_DIR]   (default tests/golden)
"""
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
    if name.startswith("fc."):
        v = u / math.sqrt(shape[1]) if len(shape) == 2 else 0.1 * u
    elif len(shape) == 4:
        fan_out = shape[0] * shape[2] * shape[3]
        v = math.sqrt(3.0) * math.sqrt(2.0 / fan_out) * u
    elif name.endswith(".weight"):
        v = 1.0 + 0.2 * u
    else:
        v = 0.1 * u
    return v.reshape(shape).float()


def summary(t):
    flat = t.detach().double().flatten()
    weights = torch.cos(0.11 * torch.arange(flat.numel(), dtype=torch.float64))
    return [float((flat * weights).sum()), float(flat.abs().sum())]


def run(model, name, num_classes, side, dtype, memory_format=torch.contiguous_format):
    with torch.no_grad():
        for pname, p in model.named_parameters():
            p.copy_(formula_value(pname, tuple(p.shape)))
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
    with torch.no_grad():
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


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden")
    models = [
        ("resnet18", lambda: torchvision.models.resnet18(num_classes=10), 10, 64),
        ("resnet50", lambda: torchvision.models.resnet50(num_classes=10), 10, 96),
        ("resnet20", lambda: CifarResNet(20, 10), 10, 16),
        ("resnext50_32x4d", lambda: torchvision.models.resnext50_32x4d(num_classes=10), 10, 96),
        ("wide_resnet50_2", lambda: torchvision.models.wide_resnet50_2(num_classes=10), 10, 64),
    ]
    for name, make_model, num_classes, side in models:
        path = os.path.join(out_dir, f"{name}.json")
        with open(path, "w") as f:
            json.dump(golden(make_model, name, num_classes, side), f, indent=1)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
