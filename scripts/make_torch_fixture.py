#!/usr/bin/python3
"""Writes the PyTorch fixture of tests/io/torch_golden_test.cpp (needs Debian's python3-torch):

  tests/io/fixtures/tiny_resnet_torch.safetensors     the state_dict of TinyResNet below
  tests/io/fixtures/tiny_resnet_torch_io.safetensors  an input batch (NCHW) and its eval logits

TinyResNet is tests/graph/tiny_resnet.cpp written in PyTorch, module for module and name for
name, with random weights and BatchNorm statistics. The files are written the way Python's
safetensors writes them (this machine has no safetensors package): an 8-byte little-endian
header length, a JSON header padded with spaces to 8 bytes, the tensors largest dtype first.
Usage: scripts/make_torch_fixture.py [OUT_DIR]
"""
import json
import os
import struct
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

NUM_CLASSES = 5


def conv_bn(c_in, c_out, kernel_size, stride=1, padding=0):
    return nn.Conv2d(c_in, c_out, kernel_size, stride, padding, bias=False), nn.BatchNorm2d(c_out)


class Basic(nn.Module):  # stride 2, 1x1 downsample
    def __init__(self):
        super().__init__()
        self.conv1, self.bn1 = conv_bn(4, 8, 3, 2, 1)
        self.conv2, self.bn2 = conv_bn(8, 8, 3, 1, 1)
        self.downsample = nn.Sequential(*conv_bn(4, 8, 1, 2))

    def forward(self, x):
        out = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x)))))
        return F.relu(out + self.downsample(x))


class Neck(nn.Module):  # bottleneck, width 2, identity shortcut
    def __init__(self):
        super().__init__()
        self.conv1, self.bn1 = conv_bn(8, 2, 1)
        self.conv2, self.bn2 = conv_bn(2, 2, 3, 1, 1)
        self.conv3, self.bn3 = conv_bn(2, 8, 1)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = F.relu(self.bn2(self.conv2(out)))
        return F.relu(self.bn3(self.conv3(out)) + x)


class Cifar(nn.Module):  # option-A shortcut: subsample, zero channels 2 before and 2 after
    def __init__(self):
        super().__init__()
        self.conv1, self.bn1 = conv_bn(8, 12, 3, 2, 1)
        self.conv2, self.bn2 = conv_bn(12, 12, 3, 1, 1)

    def forward(self, x):
        out = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x)))))
        return F.relu(out + F.pad(x[:, :, ::2, ::2], (0, 0, 0, 0, 2, 2)))


class TinyResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.bn1 = conv_bn(3, 4, 3, 1, 1)
        self.maxpool = nn.MaxPool2d(3, 1, 1)
        self.basic, self.neck, self.cifar = Basic(), Neck(), Cifar()
        self.fc = nn.Linear(12, NUM_CLASSES)

    def forward(self, x):
        x = self.maxpool(F.relu(self.bn1(self.conv1(x))))
        x = self.cifar(self.neck(self.basic(x)))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def write_safetensors(path, tensors, metadata):
    dtypes = {torch.float32: "F32", torch.int64: "I64"}
    order = sorted(tensors, key=lambda name: (-tensors[name].element_size(), name))
    header, data, offset = {"__metadata__": metadata}, b"", 0
    for name in order:
        t = tensors[name].contiguous()
        raw = t.numpy().tobytes()  # x86-64: little-endian
        header[name] = {"dtype": dtypes[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        data += raw
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "io", "fixtures")
    torch.manual_seed(6)
    model = TinyResNet()
    with torch.no_grad():  # BatchNorm far from its initial identity, so every tensor matters
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.5, 0.5)
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.num_batches_tracked.fill_(17)
    model.eval()
    x = torch.randn(2, 3, 8, 8)
    with torch.no_grad():
        logits = model(x)
    write_safetensors(os.path.join(out_dir, "tiny_resnet_torch.safetensors"), model.state_dict(),
                      {"format": "pt"})
    write_safetensors(os.path.join(out_dir, "tiny_resnet_torch_io.safetensors"),
                      {"input": x, "logits": logits}, {"format": "pt"})


if __name__ == "__main__":
    main()
