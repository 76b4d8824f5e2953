#!/usr/bin/env python3
"""Writes tests/golden/predict_resnet18.json: torchvision's probabilities for a few PNG images
through its ImageNet evaluation transform (Resize(256) on the PIL image, CenterCrop(224), ToTensor,
Normalize) and resnet18 (10 classes) with make_golden.py's formula weights.
tests/apps/predict_golden_test.cpp writes the same images and weights and runs `predict` on them.
Needs python3-torch, python3-torchvision and python3-pil (Debian), for this script only.

Image k (0, 1, 2, ...) of height H and width W holds, at flat index i of its H x W x RGB array,
the byte floor((u(i, 2000 + k) + 1) * 128): noise, so that every resize tap and crop offset
matters. The sizes make the resize an identity, an enlargement and a reduction.

Usage: scripts/make_predict_golden.py [OUT_FILE]
"""
import os
import sys

import torch
import torchvision
from PIL import Image
from torchvision import transforms

from make_golden import hashed_uniform, set_formula_parameters, write_json

MODEL, NUM_CLASSES, IMAGE_SIZE = "resnet18", 10, 224
IMAGES = [("same_as_resize.png", 256, 256), ("enlarged.png", 301, 250), ("reduced.png", 270, 333)]


def image(k, height, width):
    pixels = ((hashed_uniform(height * width * 3, 2000 + k) + 1) * 128).floor().to(torch.uint8)
    return Image.fromarray(pixels.reshape(height, width, 3).numpy(), "RGB")


def probabilities(batch, dtype):
    model = getattr(torchvision.models, MODEL)(num_classes=NUM_CLASSES)
    set_formula_parameters(model)
    model = model.to(dtype).eval()
    with torch.no_grad():
        return torch.softmax(model(batch.to(dtype)), dim=1).double()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden",
        f"predict_{MODEL}.json")
    transform = transforms.Compose([
        transforms.Resize(round(IMAGE_SIZE / 0.875)), transforms.CenterCrop(IMAGE_SIZE),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])])
    batch = torch.stack([transform(image(k, h, w)) for k, (_, h, w) in enumerate(IMAGES)])
    exact = probabilities(batch, torch.float64)
    single = probabilities(batch, torch.float32)
    result = {
        "model": MODEL, "num_classes": NUM_CLASSES, "image_size": IMAGE_SIZE,
        "images": [{"file": f, "key": 2000 + k, "height": h, "width": w,
                    "probabilities": exact[k].tolist()} for k, (f, h, w) in enumerate(IMAGES)],
        "float32_error": float((single - exact).abs().max()),
    }
    write_json(out, result)


if __name__ == "__main__":
    main()
