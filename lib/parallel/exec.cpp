#include "lib/parallel/exec.h"

namespace xtrain {

void parallel_for_chunks(const Exec& ex, int64_t n,
                         const std::function<void(int chunk, int64_t, int64_t)>& fn,
                         int64_t min_chunk) {
  if (n <= 0) return;
  const int64_t max_chunks = std::max<int64_t>(1, n / std::max<int64_t>(1, min_chunk));
  const int chunks = static_cast<int>(std::min<int64_t>(ex.num_threads(), max_chunks));
  if (chunks == 1) {
    fn(0, 0, n);
    return;
  }
  ex.pool->run(chunks, [&](int i) {
    const int64_t begin = n * i / chunks;
    const int64_t end = n * (i + 1) / chunks;
    if (begin < end) fn(i, begin, end);
  });
}

void parallel_for(const Exec& ex, int64_t n, const std::function<void(int64_t, int64_t)>& fn,
                  int64_t min_chunk) {
  parallel_for_chunks(
      ex, n, [&](int, int64_t begin, int64_t end) { fn(begin, end); }, min_chunk);
}

}  // namespace xtrain
