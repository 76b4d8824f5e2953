#!/usr/bin/python3
"""Writes tests/golden/trivial_augment.json: what torchvision's TrivialAugmentWide does to two
small 8-bit RGB images for every operation, magnitude bin and sign it can draw, on PIL images
(torchvision.transforms.autoaugment._apply_op, the function TrivialAugmentWide.forward calls,
with its defaults: nearest interpolation, fill None).
tests/data/trivial_augment_golden_test.cpp applies xtrain's operations to the same images and
compares.

The images: a 32 x 24 (width x height) one whose byte at flat index i of its H x W x RGB array
is 40 + (3 * x + 2 * y + 50 * c + splitmix64(i) % 60) % 170 for pixel (x, y), channel c: a
gradient with noise and a range short of 0..255, so that autocontrast, equalize and the filters
all change it. The second is its left 24 x 24, a square, where PIL rotates by 90 degrees with a
transpose. Both are stored in the file, as hex.
Each output is stored as the FNV-1a 64-bit hash of its bytes (H x W x RGB), which keeps the file
small; the magnitude tables (float32, as torch.linspace builds them) are stored as numbers.

Needs python3-torchvision and python3-pil (Debian), for this script only.
Usage: /usr/bin/python3 scripts/make_augment_golden.py [OUT_FILE]
"""
import json
import os
import sys

import numpy as np
from PIL import Image
from torchvision.transforms import InterpolationMode
from torchvision.transforms.autoaugment import TrivialAugmentWide, _apply_op

from golden_hashes import fnv1a64, splitmix64

WIDTH, HEIGHT = 32, 24


def test_image():
    pixels = np.zeros((HEIGHT, WIDTH, 3), dtype=np.uint8)
    for y in range(HEIGHT):
        for x in range(WIDTH):
            for c in range(3):
                i = (y * WIDTH + x) * 3 + c
                pixels[y, x, c] = 40 + (3 * x + 2 * y + 50 * c + splitmix64(i) % 60) % 170
    return pixels


def outputs(pixels, space):
    """{op: [[hash for sign +, hash for sign -] per bin]} (one sign for unsigned ops)."""
    image = Image.fromarray(pixels, "RGB")
    result = {}
    for op, (magnitudes, signed) in space.items():
        bins = magnitudes.tolist() if magnitudes.ndim > 0 else [0.0]
        result[op] = []
        for magnitude in bins:
            signs = [1.0, -1.0] if signed else [1.0]
            result[op].append([
                fnv1a64(np.asarray(_apply_op(image, op, float(magnitude) * s,
                                             InterpolationMode.NEAREST, None)).tobytes())
                for s in signs
            ])
    return result


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden",
        "trivial_augment.json")
    space = TrivialAugmentWide()._augmentation_space(31)
    wide = test_image()
    square = np.ascontiguousarray(wide[:, :HEIGHT])
    result = {
        "ops": list(space.keys()),
        "magnitudes": {op: (m.tolist() if m.ndim > 0 else []) for op, (m, _) in space.items()},
        "signed": {op: signed for op, (_, signed) in space.items()},
        "images": [{"height": p.shape[0], "width": p.shape[1], "pixels": p.tobytes().hex(),
                    "outputs": outputs(p, space)} for p in (wide, square)],
    }
    with open(out, "w") as f:
        json.dump(result, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
