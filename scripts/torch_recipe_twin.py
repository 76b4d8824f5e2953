"""The CIFAR-style recipes of docs/RECIPES.md (Fashion-MNIST) in PyTorch, built as torchvision's
reference script builds them, for a side-by-side run with xtrain's `--augment=cifar`: the same
model (a CIFAR ResNet of torch_cifar_resnet.py, or a torchvision model by name), transforms
(Resize(size) when the images have another size, as xtrain's cifar transforms resize them;
RandomCrop(size, padding=4), RandomHorizontalFlip, ToTensor, Normalize with ImageNet's mean and
std, RandomErasing), SGD (Nesterov optional),
torchvision's per-epoch schedule (LinearLR warmup, then CosineAnnealingLR or MultiStepLR, chained
by SequentialLR), an evaluation after every epoch.
Writes OUT/metrics.jsonl, one line per epoch: epoch, top1, the epoch's seconds and the run's wall
time so far, so time to an accuracy reads off it; OUT/checkpoint.pt after each epoch, from which a
rerun with the same OUT goes on. Needs python3-torch and python3-torchvision (Debian); xtrain
never needs it.
Usage: torch_recipe_twin.py --datadir DIR --out OUT [--epochs 100 --nesterov --seed 1 ...]"""
import argparse
import json
import os
import time

import torch
import torch.nn.functional as F
import torchvision
from torchvision import transforms

from torch_cifar_resnet import CifarResNet

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datadir", required=True, help="ImageFolder root with train/ and val/")
    p.add_argument("--out", required=True, help="folder for metrics.jsonl and checkpoint.pt")
    p.add_argument("--model", default="resnet20",
                   help="resnet20|32|44|56|110 (CIFAR ResNets) or a torchvision.models name")
    p.add_argument("--image_size", type=int, default=28)
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--batch_size", type=int, default=128)
    p.add_argument("--test_batch_size", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--weight_decay", type=float, default=5e-4)
    p.add_argument("--nesterov", action="store_true")
    p.add_argument("--lr_scheduler", choices=["cosineannealinglr", "multisteplr"],
                   default="cosineannealinglr")
    p.add_argument("--lr_milestones", default="150,225", help="multisteplr, after the warmup")
    p.add_argument("--lr_gamma", type=float, default=0.1)
    p.add_argument("--lr_warmup_epochs", type=int, default=0)
    p.add_argument("--lr_warmup_decay", type=float, default=0.01)
    p.add_argument("--random_erase", type=float, default=0.0)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--seed", type=int, default=1)
    return p.parse_args()


def make_scheduler(args, optimizer):
    """torchvision's references/classification/train.py: the main schedule over the epochs after
    the warmup, a linear warmup before it, both stepped once per epoch."""
    main_epochs = args.epochs - args.lr_warmup_epochs
    if args.lr_scheduler == "cosineannealinglr":
        main = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=main_epochs)
    else:
        milestones = [int(m) for m in args.lr_milestones.split(",")]
        main = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones, gamma=args.lr_gamma)
    if args.lr_warmup_epochs == 0:
        return main
    warmup = torch.optim.lr_scheduler.LinearLR(
        optimizer, start_factor=args.lr_warmup_decay, total_iters=args.lr_warmup_epochs)
    return torch.optim.lr_scheduler.SequentialLR(
        optimizer, schedulers=[warmup, main], milestones=[args.lr_warmup_epochs])


def make_model(name, classes):
    depth = name[len("resnet"):]
    if name.startswith("resnet") and depth in ("20", "32", "44", "56", "110"):
        return CifarResNet(int(depth), classes)
    return getattr(torchvision.models, name)(num_classes=classes)


def loaders(args):
    resize = transforms.Resize(args.image_size)  # a no-op on images of that size already
    train_steps = [resize, transforms.RandomCrop(args.image_size, padding=4),
                   transforms.RandomHorizontalFlip(), transforms.ToTensor(),
                   transforms.Normalize(MEAN, STD)]
    if args.random_erase > 0:
        train_steps.append(transforms.RandomErasing(p=args.random_erase))
    test_steps = [resize, transforms.ToTensor(), transforms.Normalize(MEAN, STD)]
    train_set = torchvision.datasets.ImageFolder(os.path.join(args.datadir, "train"),
                                                 transforms.Compose(train_steps))
    test_set = torchvision.datasets.ImageFolder(os.path.join(args.datadir, "val"),
                                                transforms.Compose(test_steps))
    generator = torch.Generator().manual_seed(args.seed)
    train = torch.utils.data.DataLoader(train_set, args.batch_size, shuffle=True, drop_last=True,
                                        num_workers=args.workers, generator=generator,
                                        persistent_workers=args.workers > 0)
    test = torch.utils.data.DataLoader(test_set, args.test_batch_size, num_workers=args.workers,
                                       persistent_workers=args.workers > 0)
    return train, test, len(train_set.classes)


def evaluate(model, test):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for images, labels in test:
            correct += (model(images).argmax(1) == labels).sum().item()
            total += labels.numel()
    return 100.0 * correct / total


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    os.makedirs(args.out, exist_ok=True)
    train, test, classes = loaders(args)
    model = make_model(args.model, classes)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum,
                                weight_decay=args.weight_decay, nesterov=args.nesterov)
    scheduler = make_scheduler(args, optimizer)
    checkpoint_path = os.path.join(args.out, "checkpoint.pt")
    start_epoch, wall = 1, 0.0
    if os.path.exists(checkpoint_path):
        state = torch.load(checkpoint_path)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        torch.set_rng_state(state["rng"])
        start_epoch, wall = state["epoch"] + 1, state["wall"]
    for epoch in range(start_epoch, args.epochs + 1):
        start = time.time()
        model.train()
        for images, labels in train:
            loss = F.cross_entropy(model(images), labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        scheduler.step()
        top1 = evaluate(model, test)
        seconds = time.time() - start
        wall += seconds
        record = {"epoch": epoch, "top1": top1, "loss": loss.item(), "seconds": seconds,
                  "wall": wall}
        print(json.dumps(record), flush=True)
        with open(os.path.join(args.out, "metrics.jsonl"), "a") as f:
            f.write(json.dumps(record) + "\n")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "rng": torch.get_rng_state(),
                    "epoch": epoch, "wall": wall}, checkpoint_path + ".tmp")
        os.replace(checkpoint_path + ".tmp", checkpoint_path)


if __name__ == "__main__":
    main()
