#!/usr/bin/python3
"""Writes tests/golden/transforms.json: what torchvision does to two small 8-bit RGB images on
PIL images when it resizes them (torchvision.transforms.functional.resize and resized_crop, the
calls of Resize and RandomResizedCrop) with nearest, bilinear and bicubic interpolation, and
what the test transform of its reference script (references/classification/presets.py,
ClassificationPresetEval: Resize(resize_size, interpolation), CenterCrop(crop_size)) gives at
several crop and resize sizes, up to the 8-bit pixels that PILToTensor reads.
tests/data/transform_golden_test.cpp does the same with xtrain's resize_image and make_transform
and compares.

The images: a 64 x 48 (width x height) one whose byte at flat index i of its H x W x RGB array is
40 + (3 * x + 2 * y + 50 * c + splitmix64(i) % 60) % 170 for pixel (x, y), channel c (a
gradient with noise), and a 37 x 53 one of splitmix64(i + 7) % 256 (noise over the full range,
where bicubic's overshoot is clamped at 0 and 255 everywhere). Both are stored in the file, as
hex. Each output is stored as the FNV-1a 64-bit hash of its bytes (H x W x RGB), which keeps the
file small.

Needs python3-torchvision and python3-pil (Debian), for this script only.
Usage: /usr/bin/python3 scripts/make_transform_golden.py [OUT_FILE]
"""
import json
import os
import sys

import numpy as np
import torchvision
from PIL import Image
from torchvision.transforms import CenterCrop, Compose, InterpolationMode, Resize
from torchvision.transforms import functional as F

from golden_hashes import fnv1a64, splitmix64

MODES = {
    "nearest": InterpolationMode.NEAREST,
    "bilinear": InterpolationMode.BILINEAR,
    "bicubic": InterpolationMode.BICUBIC,
}
# Output sizes (height, width) of whole-image resizes: shrinking far, a little, enlarging, mixed.
RESIZES = [(7, 9), (40, 50), (61, 97), (24, 80), (48, 64)]
# Boxes (top, left, height, width) cropped and resized to 24 x 24, as RandomResizedCrop does.
CROPS = [(3, 5, 30, 22), (0, 0, 37, 37), (10, 2, 9, 13)]
# The test transform's (crop_size, resize_size): resize None is xtrain's default,
# round(crop / 0.875).
TEST_SIZES = [(24, 28), (28, None), (20, 20), (16, 40)]


def gradient_image(width=64, height=48):
    pixels = np.zeros((height, width, 3), dtype=np.uint8)
    for y in range(height):
        for x in range(width):
            for c in range(3):
                i = (y * width + x) * 3 + c
                pixels[y, x, c] = 40 + (3 * x + 2 * y + 50 * c + splitmix64(i) % 60) % 170
    return pixels


def noise_image(width=37, height=53):
    count = width * height * 3
    return np.array([splitmix64(i + 7) % 256 for i in range(count)],
                    dtype=np.uint8).reshape(height, width, 3)


def hashed(image):
    return fnv1a64(np.asarray(image, dtype=np.uint8).tobytes())


def outputs(pixels):
    image = Image.fromarray(pixels, "RGB")
    result = {"resize": [], "resized_crop": [], "test": []}
    for name, mode in MODES.items():
        for height, width in RESIZES:
            result["resize"].append({"interpolation": name, "height": height, "width": width,
                                     "hash": hashed(F.resize(image, [height, width], mode))})
        for top, left, height, width in CROPS:
            out = F.resized_crop(image, top, left, height, width, [24, 24], mode)
            result["resized_crop"].append({"interpolation": name, "box": [top, left, height, width],
                                           "size": 24, "hash": hashed(out)})
        for crop, resize in TEST_SIZES:
            side = resize if resize is not None else int(round(crop / 0.875))
            transform = Compose([Resize(side, interpolation=mode), CenterCrop(crop)])
            result["test"].append({"interpolation": name, "crop": crop, "resize": resize or 0,
                                   "hash": hashed(transform(image))})
    return result


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden", "transforms.json")
    result = {
        "torchvision": torchvision.__version__,
        "pil": Image.__version__,
        "images": [{"height": p.shape[0], "width": p.shape[1], "pixels": p.tobytes().hex(),
                    **outputs(p)} for p in (gradient_image(), noise_image())],
    }
    with open(out, "w") as f:
        json.dump(result, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
