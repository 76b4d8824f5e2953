"""He et al. 2015's CIFAR ResNets (section 4.2) in PyTorch, as the common reproduction writes
them: option-A shortcuts (subsample, zero channels split evenly before and after). The
reference that scripts/make_golden.py and scripts/bench_torch.py compare xtrain's with; state_dict
names match models/cifar_resnet.cpp. Needs python3-torch (Debian), for these scripts only."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class CifarBasicBlock(nn.Module):
    """He et al. 2015 section 4.2 with option-A shortcuts, as the common PyTorch reproduction."""

    def __init__(self, in_planes, planes, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.pad = (planes - in_planes) // 2
        self.stride = stride

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        shortcut = x
        if self.stride != 1 or self.pad:
            shortcut = F.pad(x[:, :, :: self.stride, :: self.stride],
                             (0, 0, 0, 0, self.pad, self.pad))
        return F.relu(out + shortcut)


class CifarResNet(nn.Module):
    def __init__(self, depth, num_classes):
        super().__init__()
        n = (depth - 2) // 6
        self.conv1 = nn.Conv2d(3, 16, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        in_planes = 16
        for stage, planes in enumerate([16, 32, 64]):
            blocks = []
            for i in range(n):
                stride = 2 if stage > 0 and i == 0 else 1
                blocks.append(CifarBasicBlock(in_planes, planes, stride))
                in_planes = planes
            setattr(self, f"layer{stage + 1}", nn.Sequential(*blocks))
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.layer3(self.layer2(self.layer1(x)))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))
