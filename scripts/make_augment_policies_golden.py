#!/usr/bin/python3
"""Writes tests/golden/augment_policies.json: what torchvision 0.14's RandAugment, AutoAugment
(IMAGENET) and AugMix compute, for tests/data/augment_policies_golden_test.cpp:
- each policy's magnitude tables (float32, from its _augmentation_space) for one image size, and
  its translate tables, which scale with the size, for several more; AutoAugment's IMAGENET
  sub-policies;
- on the two images of scripts/make_augment_golden.py (PIL images): _apply_op's output for every
  operation, bin and sign of RandAugment's 31-bin and AutoAugment's 10-bin tables, and Invert
  (nearest, fill None: the classes' defaults);
- on the same images as uint8 tensors, AugMix's path: _apply_op's output for every operation,
  bin and sign of AugMix's 10-bin tables (bilinear, AugMix's default);
- whole AugMix calls on the wide image (a PIL image, as the training recipe passes it), with the
  Dirichlet draws and each chain's operations recorded beside the output, so that a test can
  give xtrain's mixing the same draws.
Outputs are stored as FNV-1a 64-bit hashes of their bytes (H x W x RGB).

Needs python3-torchvision and python3-pil (Debian), for this script only.
Usage: /usr/bin/python3 scripts/make_augment_policies_golden.py [OUT_FILE]
"""
import json
import os
import sys

import numpy as np
import torch
from PIL import Image
from torchvision.transforms import InterpolationMode
from torchvision.transforms import autoaugment
from torchvision.transforms.autoaugment import AugMix, AutoAugment, AutoAugmentPolicy, RandAugment

from make_augment_golden import HEIGHT, fnv1a64, test_image

SIZES = [(24, 32), (24, 24), (224, 224), (299, 299), (7, 13), (331, 331), (384, 512)]
AUGMIX_CASES = [(seed, severity) for severity in (1, 3, 10) for seed in range(8)]


def spaces():
    made = {
        "RandAugment": (31, lambda size: RandAugment()._augmentation_space(31, size)),
        "AutoAugment": (10, lambda size: AutoAugment()._augmentation_space(10, size)),
        "AugMix": (10, lambda size: AugMix()._augmentation_space(10, size)),
    }
    result = {}
    for name, (bins, space_of) in made.items():
        first = space_of(SIZES[0])
        result[name] = {
            "bins": bins,
            "ops": list(first.keys()),
            "signed": {op: signed for op, (_, signed) in first.items()},
            "height": SIZES[0][0], "width": SIZES[0][1],
            "magnitudes": {op: (m.tolist() if m.ndim > 0 else []) for op, (m, _) in first.items()},
            "translate": [{"height": h, "width": w,
                           "TranslateX": space_of((h, w))["TranslateX"][0].tolist(),
                           "TranslateY": space_of((h, w))["TranslateY"][0].tolist()}
                          for h, w in SIZES[1:]],
        }
    return result


def imagenet_policy():
    return [[[op, p, magnitude_id] for op, p, magnitude_id in sub_policy]
            for sub_policy in AutoAugment(AutoAugmentPolicy.IMAGENET).policies]


def as_bytes(image):
    if isinstance(image, torch.Tensor):
        return image.permute(1, 2, 0).contiguous().numpy().tobytes()
    return np.asarray(image).tobytes()


def op_outputs(image, space, interpolation):
    """{op: [[hash for sign +, hash for sign -] per bin]} (one sign for unsigned ops)."""
    result = {}
    for op, (magnitudes, signed) in space.items():
        bins = magnitudes.tolist() if magnitudes.ndim > 0 else [0.0]
        result[op] = [[fnv1a64(as_bytes(autoaugment._apply_op(image, op, float(m) * s,
                                                              interpolation, None)))
                       for s in ([1.0, -1.0] if signed else [1.0])] for m in bins]
    return result


class RecordingAugMix(AugMix):
    """AugMix that keeps its Dirichlet draws and, through _apply_op, its chains' operations."""

    def __init__(self, severity):
        super().__init__(severity=severity)
        self.dirichlet = []

    def _sample_dirichlet(self, params):
        draw = super()._sample_dirichlet(params)
        self.dirichlet.append(draw[0].tolist())
        return draw


def augmix_cases(pixels):
    image = Image.fromarray(pixels, "RGB")
    apply_op = autoaugment._apply_op
    cases = []
    for seed, severity in AUGMIX_CASES:
        chains, first = [], []

        def recording(img, op_name, magnitude, interpolation, fill):
            if not first or img is first[0]:  # every chain starts from the original batch
                first[:] = first or [img]
                chains.append([])
            chains[-1].append([op_name, magnitude])
            return apply_op(img, op_name, magnitude, interpolation=interpolation, fill=fill)

        augmix = RecordingAugMix(severity)
        torch.manual_seed(seed)
        autoaugment._apply_op = recording
        try:
            out = augmix(image)
        finally:
            autoaugment._apply_op = apply_op
        cases.append({"severity": severity, "m": augmix.dirichlet[0],
                      "chain_weights": augmix.dirichlet[1], "chains": chains,
                      "output": fnv1a64(as_bytes(out))})
    return cases


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden",
        "augment_policies.json")
    wide = test_image()
    square = np.ascontiguousarray(wide[:, :HEIGHT])
    images = []
    for pixels in (wide, square):
        h, w = pixels.shape[:2]
        pil = Image.fromarray(pixels, "RGB")
        tensor = torch.from_numpy(pixels).permute(2, 0, 1).contiguous()
        nearest, bilinear = InterpolationMode.NEAREST, InterpolationMode.BILINEAR
        images.append({
            "height": h, "width": w, "pixels": pixels.tobytes().hex(),
            "invert": fnv1a64(as_bytes(autoaugment._apply_op(pil, "Invert", 0.0, nearest, None))),
            "RandAugment": op_outputs(pil, RandAugment()._augmentation_space(31, (h, w)), nearest),
            "AutoAugment": op_outputs(pil, AutoAugment()._augmentation_space(10, (h, w)), nearest),
            "AugMix": op_outputs(tensor, AugMix()._augmentation_space(10, (h, w)), bilinear),
        })
    result = {"spaces": spaces(), "imagenet_policy": imagenet_policy(), "images": images,
              "augmix": augmix_cases(wide)}
    with open(out, "w") as f:
        json.dump(result, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
