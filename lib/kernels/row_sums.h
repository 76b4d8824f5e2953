// Row sums: per-channel sums over the M rows of [M, C] data, in double, whose bits do not depend
// on the thread count: the rows go in chunks of a fixed count, each chunk is summed on its own
// into its own partial sums (threads split the chunks), and the chunks' partials are then added in
// chunk order. BatchNorm's statistics and gradient sums, LayerNorm's and LayerScale's parameter
// gradients.
// Not here: what a row adds (the callers' add_rows).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "lib/parallel/exec.h"

namespace xtrain::kernels {

struct RowChunks {
  int64_t m;               // rows
  int c;                   // channels
  int sums;                // per-channel sums taken together, each a block of c in a partial
  int64_t rows_per_chunk;  // fixed by the caller's rule, never by the threads

  int64_t count() const { return (m + rows_per_chunk - 1) / rows_per_chunk; }
  int64_t block() const { return int64_t{sums} * c; }
  // Doubles of scratch sum_rows_in_chunks needs: one block per chunk (and one for no rows).
  size_t partial_doubles() const { return size_t(std::max<int64_t>(count(), 1) * block()); }
};

// add_rows(r0, r1, partial) adds rows [r0, r1) into partial[sums * c], zeroed before. `partials`
// holds chunks.partial_doubles(). Returns the totals [sums * c]: the first chunk's block, into
// which the other chunks' blocks are added in order.
template <typename AddRows>
const double* sum_rows_in_chunks(const RowChunks& chunks, double* partials, AddRows&& add_rows,
                                 const Exec& ex) {
  const int64_t count = chunks.count(), block = chunks.block();
  if (count == 0) std::fill(partials, partials + block, 0.0);  // the totals of no rows
  parallel_for(ex, count, [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) {
      double* partial = partials + k * block;
      std::fill(partial, partial + block, 0.0);
      add_rows(k * chunks.rows_per_chunk, std::min(chunks.m, (k + 1) * chunks.rows_per_chunk),
               partial);
    }
  });
  for (int64_t k = 1; k < count; ++k) {
    const double* partial = partials + k * block;
    for (int64_t i = 0; i < block; ++i) partials[i] += partial[i];
  }
  return partials;
}

}  // namespace xtrain::kernels
