// Plain-loop twin of lib/kernels/copy_columns.h, element by element.
#pragma once

#include "lib/kernels/copy_columns.h"

namespace xtrain::kernels::reference {

void copy_columns(int64_t rows, const ColumnBlock& b);
void copy_columns_zero_others(int64_t rows, const ColumnBlock& b);

}  // namespace xtrain::kernels::reference
