#!/usr/bin/env python3
"""Writes tests/golden/state_dict_keys.json: every torchvision model xtrain builds, as the names
and shapes of its state_dict (1000 classes), which tests/models/registry_test.cpp compares with
xtrain's ParamStore converted to PyTorch's layouts. PyTorch is needed to regenerate it only.

Usage: scripts/make_state_dict_keys.py [OUT_FILE]   (default tests/golden/state_dict_keys.json)
"""
import json
import os
import sys

import torchvision

MODELS = ["resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnext50_32x4d",
          "resnext101_32x8d", "resnext101_64x4d", "wide_resnet50_2", "wide_resnet101_2",
          "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn", "vgg16_bn", "vgg19_bn",
          "alexnet", "squeezenet1_0", "squeezenet1_1", "densenet121", "densenet161",
          "densenet169", "densenet201", "inception_v3", "mobilenet_v2", "mobilenet_v3_large",
          "mobilenet_v3_small", "googlenet", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0",
          "shufflenet_v2_x1_5", "shufflenet_v2_x2_0",
          "mnasnet0_5", "mnasnet0_75", "mnasnet1_0", "mnasnet1_3",
          "regnet_x_400mf", "regnet_x_800mf", "regnet_x_1_6gf", "regnet_x_3_2gf", "regnet_x_8gf",
          "regnet_x_16gf", "regnet_x_32gf", "regnet_y_400mf", "regnet_y_800mf", "regnet_y_1_6gf",
          "regnet_y_3_2gf", "regnet_y_8gf", "regnet_y_16gf", "regnet_y_32gf", "regnet_y_128gf",
          "efficientnet_b0", "efficientnet_b1", "efficientnet_b2",
          "efficientnet_b3", "efficientnet_b4", "efficientnet_b5", "efficientnet_b6",
          "efficientnet_b7", "efficientnet_v2_s", "efficientnet_v2_m", "efficientnet_v2_l",
          "convnext_tiny", "convnext_small", "convnext_base", "convnext_large"]


def build(name):
    if name == "inception_v3":  # as test_train_imagenet.py builds it
        return torchvision.models.inception_v3(aux_logits=False, init_weights=False)
    if name == "googlenet":  # without aux classifiers, as xtrain builds it
        return torchvision.models.googlenet(aux_logits=False, init_weights=False)
    return getattr(torchvision.models, name)()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden", "state_dict_keys.json")
    keys = {name: [[k, list(v.shape)] for k, v in build(name).state_dict().items()]
            for name in MODELS}
    with open(out + ".tmp", "w") as f:
        json.dump(keys, f, separators=(",", ":"))
    os.replace(out + ".tmp", out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
