#!/usr/bin/env python3
"""Writes tests/golden/batch_mix.json: torchvision's RandomMixup and RandomCutmix (its reference
script's transforms.py, at p=1) on a small batch for given draws, and torch's cross-entropy over
the soft targets they make, for tests/train/batch_mix_test.cpp. Needs python3-torch (Debian), for
this script only.

The two transforms live in torchvision's references, not in its package: their forward is written
out below line for line with torch's ops, the random draws (lambda, the box centre) given instead
of drawn. Images are NCHW here and NHWC in the file.

Usage: scripts/make_batch_mix_golden.py [OUT_FILE]   (default tests/golden/batch_mix.json)
"""
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

N, C, H, W, CLASSES = 3, 3, 5, 7, 4
LABELS = [2, 0, 3]
LABEL_SMOOTHING = 0.1


def hashed(i, k):
    h = ((i + 1) * 2654435761 + k * 40503) % 2**32
    return h / 2**31 - 1.0


def batch():
    return torch.tensor([hashed(i, 1) for i in range(N * C * H * W)],
                        dtype=torch.float32).reshape(N, C, H, W)


def mixup(lambda_param):
    images, target = batch(), F.one_hot(torch.tensor(LABELS), CLASSES).to(torch.float32)
    batch_rolled, target_rolled = images.roll(1, 0), target.roll(1, 0)
    batch_rolled.mul_(1.0 - lambda_param)
    images.mul_(lambda_param).add_(batch_rolled)
    target_rolled.mul_(1.0 - lambda_param)
    target.mul_(lambda_param).add_(target_rolled)
    return images, target, lambda_param


def cutmix(lambda_param, r_x, r_y):
    images, target = batch(), F.one_hot(torch.tensor(LABELS), CLASSES).to(torch.float32)
    batch_rolled, target_rolled = images.roll(1, 0), target.roll(1, 0)
    r = 0.5 * math.sqrt(1.0 - lambda_param)
    r_w_half, r_h_half = int(r * W), int(r * H)
    x1 = int(torch.clamp(torch.tensor(r_x - r_w_half), min=0))
    y1 = int(torch.clamp(torch.tensor(r_y - r_h_half), min=0))
    x2 = int(torch.clamp(torch.tensor(r_x + r_w_half), max=W))
    y2 = int(torch.clamp(torch.tensor(r_y + r_h_half), max=H))
    images[:, :, y1:y2, x1:x2] = batch_rolled[:, :, y1:y2, x1:x2]
    lambda_param = float(1.0 - (x2 - x1) * (y2 - y1) / (W * H))
    target_rolled.mul_(1.0 - lambda_param)
    target.mul_(lambda_param).add_(target_rolled)
    return images, target, lambda_param


def case(kind, draws, result):
    images, target, lambda_param = result
    logits = torch.tensor([hashed(i * i * 31 + 11, 7) * 3 for i in range(N * CLASSES)]).reshape(
        N, CLASSES)
    loss = F.cross_entropy(logits, target, label_smoothing=LABEL_SMOOTHING)
    return {"kind": kind, "draws": draws, "lambda": lambda_param,
            "images": images.permute(0, 2, 3, 1).reshape(-1).tolist(),
            "logits": logits.reshape(-1).tolist(), "loss": float(loss)}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "tests", "golden", "batch_mix.json")
    golden = {
        "n": N, "channels": C, "height": H, "width": W, "classes": CLASSES, "labels": LABELS,
        "label_smoothing": LABEL_SMOOTHING,
        "images": batch().permute(0, 2, 3, 1).reshape(-1).tolist(),
        "cases": [
            case("mixup", {"lambda": 0.37}, mixup(0.37)),
            case("cutmix", {"lambda": 0.45, "cx": 5, "cy": 1}, cutmix(0.45, 5, 1)),
            case("cutmix", {"lambda": 0.05, "cx": 3, "cy": 2}, cutmix(0.05, 3, 2)),
        ],
    }
    with open(out, "w") as f:
        json.dump(golden, f)
        f.write("\n")


if __name__ == "__main__":
    main()
