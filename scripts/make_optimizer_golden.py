#!/usr/bin/env python3
"""Writes tests/golden/optimizers.json: three steps of each optimizer --opt offers, as PyTorch
computes them, for tests/optim/optimizer_golden_test.cpp. Needs python3-torch (Debian), for this
script only.

Three parameter tensors of one flat buffer, each in its own parameter group with its own weight
decay (as torchvision's set_weight_decay makes them): a weight (adapted by LARS and LAMB), a
normalization layer's weight and a bias (not adapted). Values are hashed, gradients given, not
computed; the learning rates are float32 values, as xtrain's schedules hand them over.
sgd, sgd_nesterov, rmsprop and adamw are torch.optim's at torchvision's settings. torch has no
LARS or LAMB: they are written out below from their definitions (MLPerf's TensorFlow LARS over
ApplyMomentum; You et al. 2019's LAMB), in float32 with the norms in float64.

Usage: scripts/make_optimizer_golden.py [OUT_FILE]   (default tests/golden/optimizers.json)
"""
import json
import math
import os
import sys

import torch

SIZES = [6, 3, 4]
WEIGHT_DECAYS = [0.01, 0.0, 0.005]
ADAPTED = [True, False, False]
LRS = [0.1, 0.05, 0.02]
MOMENTUM = 0.9
TRUST = 0.001


def f32(x):
    return float(torch.tensor(x, dtype=torch.float32))


def hashed(i, k):
    """A value in [-1, 1) from an integer hash (Knuth's multiplicative, 32 bits)."""
    h = ((i + 1) * 2654435761 + k * 40503) % 2**32
    return h / 2**31 - 1.0


def tensors_of(k):
    out, i = [], 0
    for size in SIZES:
        out.append(torch.tensor([f32(hashed(i + j, k)) for j in range(size)], dtype=torch.float32))
        i += size
    return out


def flat(ts):
    return [float(v) for t in ts for v in t.tolist()]


def run_torch(name, momentum):
    params = [t.clone().requires_grad_(True) for t in tensors_of(1)]
    groups = [{"params": [p], "weight_decay": f32(wd)} for p, wd in zip(params, WEIGHT_DECAYS)]
    lr = f32(LRS[0])
    if name in ("sgd", "sgd_nesterov"):
        opt = torch.optim.SGD(groups, lr=lr, momentum=momentum, nesterov=name == "sgd_nesterov")
        state_names = ["momentum_buffer"]
    elif name == "rmsprop":
        opt = torch.optim.RMSprop(groups, lr=lr, momentum=momentum, eps=0.0316, alpha=0.9)
        state_names = ["square_avg"] + (["momentum_buffer"] if momentum > 0 else [])
    else:
        opt = torch.optim.AdamW(groups, lr=lr)
        state_names = ["exp_avg", "exp_avg_sq"]
    steps = []
    for step in range(3):
        for group in opt.param_groups:
            group["lr"] = f32(LRS[step])
        for p, g in zip(params, tensors_of(10 + step)):
            p.grad = g.clone()
        opt.step()
        steps.append({"params": flat([p.detach() for p in params]),
                      "state": {s: flat([opt.state[p][s] for p in params]) for s in state_names}})
    return steps


def norm(t):
    return math.sqrt(float((t.double() ** 2).sum()))


def run_lars(nesterov):
    params, bufs = tensors_of(1), [torch.zeros(s) for s in SIZES]
    steps = []
    for step in range(3):
        lr = f32(LRS[step])
        for i, g in enumerate(tensors_of(10 + step)):
            w, wd = params[i], f32(WEIGHT_DECAYS[i])
            scaled = lr
            if ADAPTED[i]:
                wn, gn = norm(w), norm(g)
                if wn > 0 and gn > 0:
                    scaled = f32(lr * (f32(TRUST) * wn / (gn + wd * wn)))
                g = g + torch.tensor(wd, dtype=torch.float32) * w
            bufs[i] = torch.tensor(MOMENTUM, dtype=torch.float32) * bufs[i] + g
            d = g + torch.tensor(MOMENTUM, dtype=torch.float32) * bufs[i] if nesterov else bufs[i]
            params[i] = w - torch.tensor(scaled, dtype=torch.float32) * d
        steps.append({"params": flat(params), "state": {"momentum_buffer": flat(bufs)}})
    return steps


def run_lamb():
    b1, b2, eps = 0.9, 0.999, 1e-6
    params = tensors_of(1)
    m, v = [torch.zeros(s) for s in SIZES], [torch.zeros(s) for s in SIZES]
    steps = []
    for step in range(3):
        lr, t = f32(LRS[step]), step + 1
        c1, c2 = f32(1 / (1 - b1**t)), f32(1 / (1 - b2**t))
        for i, g in enumerate(tensors_of(10 + step)):
            w, wd = params[i], f32(WEIGHT_DECAYS[i])
            m[i] = m[i] * f32(b1) + f32(1 - b1) * g
            v[i] = v[i] * f32(b2) + f32(1 - b2) * g * g
            u = (m[i] * c1) / ((v[i] * c2).sqrt() + f32(eps)) + torch.tensor(wd) * w
            scaled = lr
            if ADAPTED[i]:
                wn, un = norm(w), norm(u)
                if wn > 0 and un > 0:
                    scaled = f32(lr * (wn / un))
            params[i] = w - torch.tensor(scaled, dtype=torch.float32) * u
        steps.append({"params": flat(params), "state": {"exp_avg": flat(m), "exp_avg_sq": flat(v)}})
    return steps


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "tests", "golden", "optimizers.json")
    cases = [
        {"opt": "sgd", "momentum": MOMENTUM, "nesterov": False, "steps": run_torch("sgd", MOMENTUM)},
        {"opt": "sgd_nesterov", "momentum": MOMENTUM, "nesterov": False,
         "steps": run_torch("sgd_nesterov", MOMENTUM)},
        {"opt": "rmsprop", "momentum": MOMENTUM, "nesterov": False,
         "steps": run_torch("rmsprop", MOMENTUM)},
        {"opt": "rmsprop", "momentum": 0.0, "nesterov": False, "steps": run_torch("rmsprop", 0.0)},
        {"opt": "adamw", "momentum": MOMENTUM, "nesterov": False, "steps": run_torch("adamw", 0.0)},
        {"opt": "lars", "momentum": MOMENTUM, "nesterov": False, "steps": run_lars(False)},
        {"opt": "lars", "momentum": MOMENTUM, "nesterov": True, "steps": run_lars(True)},
        {"opt": "lamb", "momentum": MOMENTUM, "nesterov": False, "steps": run_lamb()},
    ]
    golden = {
        "tensors": [{"size": s, "weight_decay": f32(wd), "adapted": a}
                    for s, wd, a in zip(SIZES, WEIGHT_DECAYS, ADAPTED)],
        "params": flat(tensors_of(1)),
        "grads": [flat(tensors_of(10 + step)) for step in range(3)],
        "lrs": [f32(lr) for lr in LRS],
        "trust_coefficient": f32(TRUST),
        "cases": cases,
    }
    with open(out, "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
