"""The PyTorch side of scripts/bench: the same training step as `train --fake_data
--fake_images=noise` (SGD with momentum, cross-entropy, torch.randn images, random labels) on torchvision's model, on every CPU thread: float32 in
NCHW (PyTorch's default), or bf16 under torch.autocast("cpu", dtype=torch.bfloat16) with model
and images channels_last, as PyTorch's CPU performance guides run bfloat16 (oneDNN's fast
layout); float32 weights, as xtrain's --bf16.
Prints one line:  images_per_second <R> max_rss_kb <K>, R from the median step time (as
scripts/bench times xtrain: robust to a step slowed by another tenant of a shared machine).
Usage: bench_torch.py MODEL IMAGE_SIZE BATCH NUM_CLASSES WARMUP_STEPS STEPS [float32|bf16]
Needs python3-torch and python3-torchvision; scripts/bench checks that before calling it."""
import os
import resource
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

from torch_cifar_resnet import CifarResNet


def main():
    name, size, batch, classes, warmup, steps = sys.argv[1], *map(int, sys.argv[2:7])
    bf16 = len(sys.argv) > 7 and sys.argv[7] == "bf16"
    torch.set_num_threads(os.cpu_count())
    if name.startswith("resnet") and int(name[6:]) in (20, 32, 44, 56, 110):
        model = CifarResNet(int(name[6:]), classes)
    elif name == "inception_v3":  # as test_train_imagenet.py builds it (and xtrain's)
        model = torchvision.models.inception_v3(num_classes=classes, aux_logits=False,
                                                init_weights=False)
    else:
        model = getattr(torchvision.models, name)(num_classes=classes)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    images = torch.randn(batch, 3, size, size)
    labels = torch.randint(0, classes, (batch,))
    if bf16:
        model = model.to(memory_format=torch.channels_last)
        images = images.contiguous(memory_format=torch.channels_last)
    model.train()
    seconds = []
    for step in range(warmup + steps):
        start = time.perf_counter()
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            loss = F.cross_entropy(model(images), labels)
        loss.backward()
        opt.step()
        if step >= warmup:
            seconds.append(time.perf_counter() - start)
    rate = batch / statistics.median(seconds)
    max_rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"images_per_second {rate:.3f} max_rss_kb {max_rss_kb}")


if __name__ == "__main__":
    main()
