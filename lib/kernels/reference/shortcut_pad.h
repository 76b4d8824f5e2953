// Plain-loop twin of lib/kernels/shortcut_pad.h.
#pragma once

#include "lib/kernels/shortcut_pad.h"

namespace xtrain::kernels::reference {

void shortcut_pad_forward(const ShortcutPadShape& s, const float* x, float* y);
void shortcut_pad_backward(const ShortcutPadShape& s, const float* dy, float* dx);

}  // namespace xtrain::kernels::reference
