"""The PyTorch side of scripts/bench: the same training step as `train --fake_data` (SGD with
momentum, cross-entropy, random images) on torchvision's model, NCHW, on every CPU thread.
Prints one line:  images_per_second <R> max_rss_kb <K>
Usage: bench_torch.py MODEL IMAGE_SIZE BATCH NUM_CLASSES WARMUP_STEPS STEPS
Needs python3-torch and python3-torchvision; scripts/bench checks that before calling it."""
import os
import resource
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision


class CifarBasicBlock(nn.Module):
    """He et al. 2015's CIFAR block with the option-A shortcut (subsample, zero-pad channels)."""

    def __init__(self, in_planes, planes, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.stride, self.pad = stride, planes - in_planes

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        shortcut = x
        if self.stride != 1 or self.pad:
            shortcut = F.pad(x[:, :, ::self.stride, ::self.stride], (0, 0, 0, 0, 0, self.pad))
        return F.relu(out + shortcut)


def cifar_resnet(depth, num_classes):
    n = (depth - 2) // 6
    layers = [nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU()]
    in_planes = 16
    for planes, stride in ((16, 1), (32, 2), (64, 2)):
        for i in range(n):
            layers.append(CifarBasicBlock(in_planes, planes, stride if i == 0 else 1))
            in_planes = planes
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, num_classes)]
    return nn.Sequential(*layers)


def main():
    name, size, batch, classes, warmup, steps = sys.argv[1], *map(int, sys.argv[2:7])
    torch.set_num_threads(os.cpu_count())
    if name.startswith("resnet") and int(name[6:]) in (20, 32, 44, 56, 110):
        model = cifar_resnet(int(name[6:]), classes)
    else:
        model = getattr(torchvision.models, name)(num_classes=classes)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    images = torch.randn(batch, 3, size, size)
    labels = torch.randint(0, classes, (batch,))
    model.train()
    for step in range(warmup + steps):
        if step == warmup:
            start = time.perf_counter()
        opt.zero_grad()
        F.cross_entropy(model(images), labels).backward()
        opt.step()
    rate = batch * steps / (time.perf_counter() - start)
    max_rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"images_per_second {rate:.3f} max_rss_kb {max_rss_kb}")


if __name__ == "__main__":
    main()
