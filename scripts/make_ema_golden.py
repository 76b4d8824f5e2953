#!/usr/bin/env python3
"""Writes tests/golden/model_ema.json: torchvision's --model-ema (references/classification: the
decay adjusted in train.py, utils.ExponentialMovingAverage over torch.optim.swa_utils.AveragedModel
with use_buffers=True) on a tiny model, for tests/train/model_ema_test.cpp. Needs python3-torch
(Debian), for this script only.

ExponentialMovingAverage lives in torchvision's references, not in its package: it is written out
below as torchvision 0.14 has it, over torch's own AveragedModel. The model's parameters, buffers
and num_batches_tracked are set before each update as training would move them, the update runs,
and during the "warmup" updates n_averaged is reset to 0 afterwards as train_one_epoch does.
The file holds each kind flat, in the module's order (the C++ test needs only the element-wise
correspondence): the model's values before each update and the average's after it.

Usage: scripts/make_ema_golden.py [OUT_FILE]   (default tests/golden/model_ema.json)
"""
import json
import os
import sys

import torch
from torch import nn


class ExponentialMovingAverage(torch.optim.swa_utils.AveragedModel):
    """torchvision 0.14 references/classification/utils.py"""

    def __init__(self, model, decay, device="cpu"):
        def ema_avg(avg_model_param, model_param, num_averaged):
            return decay * avg_model_param + (1 - decay) * model_param

        super().__init__(model, device, ema_avg, use_buffers=True)


def adjusted_decay(world_size, batch_size, model_ema_steps, epochs, model_ema_decay):
    """torchvision 0.14 references/classification/train.py"""
    adjust = world_size * batch_size * model_ema_steps / epochs
    alpha = 1.0 - model_ema_decay
    alpha = min(1.0, alpha * adjust)
    return 1.0 - alpha


def hashed(i, k):
    h = ((i + 1) * 2654435761 + k * 40503) % 2**32
    return h / 2**31 - 1.0


def tiny_model():
    # As the C++ test builds it: conv (no bias), BatchNorm, pooling, fc.
    return nn.Sequential(nn.Conv2d(3, 4, 3, bias=False), nn.BatchNorm2d(4),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 3))


def set_state(model, update):
    """Values training could have reached by this update."""
    with torch.no_grad():
        k = 0
        for p in model.parameters():
            p.copy_(torch.tensor([hashed(k + i, update) for i in range(p.numel())],
                                 dtype=torch.float32).reshape(p.shape))
            k += p.numel()
        bn = model[1]
        bn.running_mean.copy_(torch.tensor([hashed(100 + i, update) for i in range(4)]))
        bn.running_var.copy_(torch.tensor([1.5 + hashed(200 + i, update) for i in range(4)]))
        bn.num_batches_tracked.fill_(37 * (update + 1))


def flat(tensors, dtype):
    return [x.item() for t in tensors for x in t.detach().reshape(-1).to(dtype)]


def kinds(module):
    counters = [b for b in module.buffers() if b.dtype == torch.int64]
    floats = [b for b in module.buffers() if b.dtype != torch.int64]
    return {"params": flat(module.parameters(), torch.float32),
            "buffers": flat(floats, torch.float32),
            "counters": flat(counters, torch.int64)}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "tests", "golden", "model_ema.json")
    torch.manual_seed(0)
    cases = []
    for world_size, batch_size, steps, epochs, decay in [
            (8, 32, 32, 600, 0.99998), (2, 2, 2, 3, 0.99), (64, 1024, 32, 2, 0.99998),
            (3, 7, 5, 90, 0.9999)]:
        cases.append({"global_batch": world_size * batch_size, "steps": steps, "epochs": epochs,
                      "model_ema_decay": decay,
                      "decay": adjusted_decay(world_size, batch_size, steps, epochs, decay)})

    decay = adjusted_decay(2, 2, 2, 3, 0.99)
    model = tiny_model()
    ema = ExponentialMovingAverage(model, decay=decay)
    warmup = [True, True, False, False, False, False]
    updates = []
    for update, in_warmup in enumerate(warmup):
        set_state(model, update)
        before = kinds(model)
        ema.update_parameters(model)
        if in_warmup:
            ema.n_averaged.fill_(0)
        after = kinds(ema.module)
        updates.append({"warmup": in_warmup, "model": before, "ema": after,
                        "n_averaged": int(ema.n_averaged.item())})
    with open(out, "w") as f:
        json.dump({"decays": cases, "decay": decay, "updates": updates}, f)
        f.write("\n")


if __name__ == "__main__":
    main()
