// bench_gemm: the machine's peak single-precision rate as our gemm() reaches it. Multiplies two
// large square matrices on every hardware thread, a few times, and prints the best rate as
//   peak_gflops <GFLOP/s> threads <T> size <S>
// scripts/bench divides training throughput by this figure. A benchmark, not a test.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "lib/kernels/gemm.h"
#include "lib/tensor/tensor.h"

int main(int argc, char** argv) {
  const int64_t size = argc > 1 ? std::atoll(argv[1]) : 2048;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  xtrain::ThreadPool pool(threads);
  const xtrain::Exec ex{&pool};

  xtrain::Tensor a(xtrain::Shape{size, size}), b(xtrain::Shape{size, size}),
      c(xtrain::Shape{size, size});
  for (int64_t i = 0; i < a.numel(); ++i) {
    a.data()[i] = static_cast<float>(i % 7) * 0.25f - 0.75f;  // small values: no overflow
    b.data()[i] = static_cast<float>(i % 5) * 0.5f - 1.0f;
  }
  double best_seconds = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    xtrain::kernels::gemm(false, false, size, size, size, 1.0f, a.data(), size, b.data(), size,
                          0.0f, c.data(), size, ex);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    best_seconds = std::min(best_seconds, took.count());
  }
  const double flops = 2.0 * size * size * size;
  std::printf("peak_gflops %.1f threads %d size %lld\n", flops / best_seconds / 1e9, threads,
              static_cast<long long>(size));
  return 0;
}
