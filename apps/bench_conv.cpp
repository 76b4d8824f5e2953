// bench_conv: the three Conv2d kernel passes on layer shapes, on every hardware thread, as
// milliseconds and GFLOP/s (the best of a few runs of each pass), one Markdown table row a shape.
// Where scripts/bench says how fast a model trains, this says which pass of which layer shape is
// slow, and shows a kernel change's gain in seconds.
//   bench_conv [--bf16] [--shapes=FILE | N H W C_IN C_OUT K STRIDE PAD [REPEATS [GROUPS]]]
// --bf16 times the bfloat16 passes (precision.h) instead of the float32 ones, on activations and
// gradients stored in bfloat16 as a bfloat16 plan stores them. FILE lists shapes one a line
// (apps/conv_shapes.h); without a shape it is apps/bench_conv_shapes.txt of the source tree. A
// bad argument or shapes file is one line naming it, exit 2. A benchmark, not a test.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "apps/bench_exec.h"
#include "apps/conv_shapes.h"
#include "lib/base/check.h"
#include "lib/kernels/conv2d.h"
#include "lib/tensor/aligned_buffer.h"
#include "lib/tensor/bfloat16.h"
#include "lib/tensor/elements.h"

namespace {

using xtrain::AlignedBuffer;
using xtrain::Elements;
using xtrain::ElementType;
using xtrain::Exec;
using xtrain::kernels::Conv2dShape;

// Best wall time of `repeats` calls of fn, in seconds.
template <typename Fn>
double best_seconds(int repeats, Fn&& fn) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count());
  }
  return best;
}

// Small values in a repeating pattern, exact in bfloat16.
float pattern(size_t i, int seed) {
  return static_cast<float>((i * 7 + seed) % 13) * 0.125f - 0.75f;
}

// n activations (or their gradients) stored as `type`, filled with pattern(i, seed).
class Activations {
 public:
  Activations(size_t n, ElementType type, int seed)
      : type_(type), buffer_(xtrain::floats_for(static_cast<int64_t>(n), type)) {
    for (size_t i = 0; i < n; ++i) {
      if (type == ElementType::kFloat32) {
        buffer_.data()[i] = pattern(i, seed);
      } else {
        reinterpret_cast<xtrain::BFloat16*>(buffer_.data())[i] =
            xtrain::to_bfloat16(pattern(i, seed));
      }
    }
  }
  Elements elements() { return {buffer_.data(), type_}; }

 private:
  ElementType type_;
  AlignedBuffer buffer_;
};

constexpr int kRepeats = 5;  // runs of each pass, of which the best counts

void bench(const xtrain::NamedConvShape& named, int repeats, const Exec& ex,
           xtrain::Precision precision) {
  const Conv2dShape& s = named.shape;
  const ElementType type = precision;  // activations stored as a plan of this precision stores them
  Activations x(size_t(s.n) * s.h * s.w * s.c_in, type, 1),
      dx(size_t(s.n) * s.h * s.w * s.c_in, type, 0);
  Activations y(s.rows() * s.c_out, type, 0), dy(s.rows() * s.c_out, type, 3);
  AlignedBuffer weight(s.patch() * s.c_out), dweight(weight.size());
  for (size_t i = 0; i < weight.size(); ++i) weight.data()[i] = pattern(i, 2);
  AlignedBuffer workspace(std::max<size_t>(1, xtrain::kernels::conv2d_workspace_floats(s, type)));
  float* ws = workspace.data();
  const double forward = best_seconds(repeats, [&] {
    xtrain::kernels::conv2d_forward(s, x.elements(), weight.data(), nullptr, y.elements(), ws, ex,
                                    precision);
  });
  const double backward_data = best_seconds(repeats, [&] {
    xtrain::kernels::conv2d_backward_data(s, dy.elements(), weight.data(), dx.elements(), ws, ex,
                                          precision);
  });
  const double backward_weight = best_seconds(repeats, [&] {
    xtrain::kernels::conv2d_backward_weight(s, x.elements(), dy.elements(), dweight.data(), nullptr,
                                            ws, ex, precision);
  });
  const double gflop = 2.0 * s.rows() * s.patch() * s.c_out / 1e9;
  std::printf("|%s|%d %d %d %d %d %d %d %d %d|%.2f|%.1f|%.2f|%.1f|%.2f|%.1f|\n", named.name.c_str(),
              s.n, s.h, s.w, s.c_in, s.c_out, s.kh, s.stride, s.pad_h, s.groups, forward * 1e3,
              gflop / forward, backward_data * 1e3, gflop / backward_data, backward_weight * 1e3,
              gflop / backward_weight);
}

// The shapes the arguments name: a shapes file, one shape, or the default file.
std::vector<xtrain::NamedConvShape> shapes_of(int argc, char** argv, int* repeats) {
  if (argc == 2 && std::strncmp(argv[1], "--shapes=", 9) == 0) {
    return xtrain::read_conv_shapes_file(argv[1] + 9);
  }
  if (argc == 1) return xtrain::read_conv_shapes_file(XTRAIN_BENCH_CONV_SHAPES);
  XTRAIN_CHECK(argc >= 9 && argc <= 11,
               "usage: bench_conv [--bf16] [--shapes=FILE | N H W C_IN C_OUT K STRIDE PAD "
               "[REPEATS [GROUPS]]]");
  if (argc > 9) {
    *repeats = std::atoi(argv[9]);
    XTRAIN_CHECK(*repeats >= 1 && *repeats <= 1000,
                 "REPEATS must be a whole number from 1 to 1000, got '{}'", argv[9]);
  }
  // One line of a shapes file: the eight numbers, GROUPS, a name.
  std::string line;
  for (int i = 1; i < 9; ++i) line += std::string(argv[i]) + " ";
  line += std::string(argc > 10 ? argv[10] : "1") + " shape";
  std::istringstream in(line);
  return xtrain::read_conv_shapes(in, "arguments");
}

}  // namespace

int main(int argc, char** argv) {
  const bool bf16 = argc > 1 && std::strcmp(argv[1], "--bf16") == 0;
  const xtrain::Precision precision =
      bf16 ? xtrain::Precision::kBFloat16 : xtrain::Precision::kFloat32;
  argc -= bf16;
  argv += bf16;
  int repeats = kRepeats;
  std::vector<xtrain::NamedConvShape> shapes;
  try {
    shapes = shapes_of(argc, argv, &repeats);
  } catch (const xtrain::Error& e) {
    std::fprintf(stderr, "bench_conv: error: %s\n", e.what());
    return 2;
  }
  xtrain::BenchExec bench_threads;
  const Exec ex = bench_threads.exec();
  std::printf("%s passes on %d threads, milliseconds and GFLOP/s, the best of %d runs each\n\n",
              bf16 ? "bfloat16" : "float32", bench_threads.num_threads(), repeats);
  std::printf(
      "|shape|N H W C_in C_out K stride pad groups|fwd ms|GFLOP/s|bwd_data ms|GFLOP/s|"
      "bwd_weight ms|GFLOP/s|\n|---|---|---|---|---|---|---|---|\n");
  for (const xtrain::NamedConvShape& named : shapes) bench(named, repeats, ex, precision);
  return 0;
}
