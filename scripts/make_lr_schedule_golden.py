#!/usr/bin/env python3
"""Writes tests/golden/lr_schedules.json: the learning rate of every epoch that torchvision's
classification reference script (references/classification/train.py, torchvision 0.14) trains
with, for a few --lr_scheduler recipes, as PyTorch's own schedulers compute it. Read by
tests/optim/torchvision_lr_schedule_test.cpp; needs python3-torch (Debian), for this script only.

The schedulers are built here line by line as train.py builds them: the main scheduler (StepLR,
MultiStepLR, CosineAnnealingLR over epochs - lr_warmup_epochs, ExponentialLR), and with warmup
epochs a LinearLR or ConstantLR joined to it by SequentialLR(milestones=[lr_warmup_epochs]);
train.py steps it once after each epoch. train.py has no MultiStepLR; its milestones are
--lr_milestones here, as xtrain takes them. Every rate is written as the float64 torch holds.

Usage: scripts/make_lr_schedule_golden.py [OUT_FILE]   (default tests/golden/lr_schedules.json)
"""
import json
import os
import sys
import warnings

import torch

DEFAULTS = dict(lr_warmup_epochs=0, lr_warmup_method="constant", lr_warmup_decay=0.01,
                lr_step_size=30, lr_gamma=0.1, lr_min=0.0, lr_milestones=[])

# Each scheduler with and without warmup, and with each warmup method; the lengths and factors
# are chosen so that every decay, the warmup's end and the cosine's last epochs fall inside.
CONFIGS = [
    dict(lr_scheduler="steplr", lr=0.1, epochs=12, lr_step_size=4),
    dict(lr_scheduler="steplr", lr=0.1, epochs=12, lr_step_size=4, lr_warmup_epochs=3,
         lr_warmup_method="linear"),
    dict(lr_scheduler="steplr", lr=0.1, epochs=12, lr_step_size=4, lr_warmup_epochs=3),
    dict(lr_scheduler="steplr", lr=0.5, epochs=16, lr_step_size=5, lr_gamma=0.5,
         lr_warmup_epochs=1, lr_warmup_method="linear", lr_warmup_decay=0.1),
    dict(lr_scheduler="multisteplr", lr=0.1, epochs=15, lr_milestones=[3, 7, 12], lr_gamma=0.2),
    dict(lr_scheduler="multisteplr", lr=0.1, epochs=15, lr_milestones=[2, 5, 9],
         lr_warmup_epochs=2, lr_warmup_method="linear"),
    dict(lr_scheduler="multisteplr", lr=0.1, epochs=15, lr_milestones=[1, 2, 10],
         lr_warmup_epochs=2, lr_warmup_method="constant", lr_warmup_decay=0.3),
    dict(lr_scheduler="cosineannealinglr", lr=0.1, epochs=15),
    dict(lr_scheduler="cosineannealinglr", lr=0.1, epochs=15, lr_min=1e-3),
    dict(lr_scheduler="cosineannealinglr", lr=0.5, epochs=20, lr_warmup_epochs=5,
         lr_warmup_method="linear"),
    dict(lr_scheduler="cosineannealinglr", lr=0.5, epochs=20, lr_warmup_epochs=5,
         lr_min=1e-5),
    dict(lr_scheduler="cosineannealinglr", lr=0.1, epochs=10, lr_warmup_epochs=9,
         lr_warmup_method="linear", lr_min=0.01),
    dict(lr_scheduler="exponentiallr", lr=0.1, epochs=20, lr_gamma=0.9),
    dict(lr_scheduler="exponentiallr", lr=0.1, epochs=20, lr_gamma=0.95, lr_warmup_epochs=3,
         lr_warmup_method="linear"),
    dict(lr_scheduler="exponentiallr", lr=0.1, epochs=12, lr_gamma=0.7, lr_warmup_epochs=4,
         lr_warmup_decay=0.25),
]


def build(optimizer, args):
    """torchvision 0.14's references/classification/train.py, main(), the lr_scheduler part."""
    if args.lr_scheduler == "steplr":
        main_lr_scheduler = torch.optim.lr_scheduler.StepLR(
            optimizer, step_size=args.lr_step_size, gamma=args.lr_gamma)
    elif args.lr_scheduler == "multisteplr":  # not in train.py; xtrain's --lr_milestones
        main_lr_scheduler = torch.optim.lr_scheduler.MultiStepLR(
            optimizer, milestones=args.lr_milestones, gamma=args.lr_gamma)
    elif args.lr_scheduler == "cosineannealinglr":
        main_lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(
            optimizer, T_max=args.epochs - args.lr_warmup_epochs, eta_min=args.lr_min)
    elif args.lr_scheduler == "exponentiallr":
        main_lr_scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=args.lr_gamma)
    else:
        raise RuntimeError(args.lr_scheduler)

    if args.lr_warmup_epochs > 0:
        if args.lr_warmup_method == "linear":
            warmup_lr_scheduler = torch.optim.lr_scheduler.LinearLR(
                optimizer, start_factor=args.lr_warmup_decay, total_iters=args.lr_warmup_epochs)
        elif args.lr_warmup_method == "constant":
            warmup_lr_scheduler = torch.optim.lr_scheduler.ConstantLR(
                optimizer, factor=args.lr_warmup_decay, total_iters=args.lr_warmup_epochs)
        else:
            raise RuntimeError(args.lr_warmup_method)
        return torch.optim.lr_scheduler.SequentialLR(
            optimizer, schedulers=[warmup_lr_scheduler, main_lr_scheduler],
            milestones=[args.lr_warmup_epochs])
    return main_lr_scheduler


def rates(config):
    args = type("Args", (), {**DEFAULTS, **config})
    parameter = torch.nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.SGD([parameter], lr=args.lr, momentum=0.9)
    lr_scheduler = build(optimizer, args)
    out = []
    for _ in range(args.epochs):  # train.py: train_one_epoch(...), then lr_scheduler.step()
        out.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        lr_scheduler.step()
    return out


def main():
    out_file = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "tests", "golden", "lr_schedules.json")
    # SequentialLR steps the next scheduler with step(0), which PyTorch warns is deprecated.
    warnings.simplefilter("ignore", UserWarning)
    configs = [{**DEFAULTS, **config, "rates": rates(config)} for config in CONFIGS]
    with open(out_file, "w") as f:
        json.dump({"torch": torch.__version__, "configs": configs}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
