// bench_gemm: the machine's peak rate as our gemm() reaches it, in float32 and in bfloat16.
// Multiplies large matrices on every hardware thread, a few times each, and prints the best rate
// of each precision as
//   peak_gflops <GFLOP/s> threads <T> shape <M>x<N>x<K>
//   peak_bf16_gflops <GFLOP/s> threads <T> shape <M>x<N>x<K> (on AVX512_BF16 | emulated)
// Two shapes: a square S x S x S and a tall, shallow 8S x S x 256. The square one undersells the
// machine: each thread packs all of B for only S/2 rows of A, and C is read and written again
// for every 256-deep block of K. The shallow one is the micro-kernel's steady state, the FMA
// units' peak, which the 1x1 convolutions of ResNet-50's last stage reach in bench_conv. The
// better of the two is printed.
// scripts/bench divides training throughput by this figure. A benchmark, not a test.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "apps/bench_exec.h"
#include "lib/base/cpu.h"
#include "lib/kernels/gemm.h"
#include "lib/tensor/aligned_buffer.h"

namespace {

// Best rate of `repeats` products C[m, n] = A[m, k] * B[k, n], in GFLOP/s.
double best_gflops(int64_t m, int64_t n, int64_t k, int repeats, const xtrain::Exec& ex,
                   xtrain::Precision precision) {
  xtrain::AlignedBuffer a(m * k), b(k * n), c(m * n);
  for (size_t i = 0; i < a.size(); ++i) {
    a.data()[i] = static_cast<float>(i % 7) * 0.25f - 0.75f;  // small values: no overflow
  }
  for (size_t i = 0; i < b.size(); ++i) b.data()[i] = static_cast<float>(i % 5) * 0.5f - 1.0f;
  double best_seconds = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    xtrain::kernels::gemm(false, false, m, n, k, 1.0f, a.data(), k, b.data(), n, 0.0f, c.data(), n,
                          ex, precision);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    best_seconds = std::min(best_seconds, took.count());
  }
  return 2.0 * m * n * k / best_seconds / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t size = argc > 1 ? std::atoll(argv[1]) : 2048;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  xtrain::BenchExec bench_threads;
  const xtrain::Exec ex = bench_threads.exec();
  const int threads = bench_threads.num_threads();

  constexpr int64_t kShallow = 256;
  for (xtrain::Precision precision : {xtrain::Precision::kFloat32, xtrain::Precision::kBFloat16}) {
    const double square = best_gflops(size, size, size, repeats, ex, precision);
    const double shallow = best_gflops(8 * size, size, kShallow, repeats, ex, precision);
    const bool shallow_wins = shallow >= square;
    const bool bf16 = precision == xtrain::Precision::kBFloat16;
    std::printf(
        "%s %.1f threads %d shape %lldx%lldx%lld%s\n", bf16 ? "peak_bf16_gflops" : "peak_gflops",
        std::max(square, shallow), threads, static_cast<long long>(shallow_wins ? 8 * size : size),
        static_cast<long long>(size), static_cast<long long>(shallow_wins ? kShallow : size),
        !bf16                            ? ""
        : xtrain::bfloat16_in_hardware() ? " on AVX512_BF16"
                                         : " emulated");
  }
  return 0;
}
