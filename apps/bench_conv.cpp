// bench_conv: the three Conv2d kernel passes on one layer shape, on every hardware thread, as
// milliseconds and GFLOP/s (best of a few runs). Where scripts/bench says how fast a model trains,
// this says which pass of which layer shape is slow, and shows a kernel change's gain in seconds.
//   bench_conv [--bf16] [N H W C_IN C_OUT K STRIDE PAD [REPEATS [GROUPS]]]
// --bf16 times the bfloat16 passes (precision.h) instead of the float32 ones, on activations and
// gradients stored in bfloat16 as a bfloat16 plan stores them.
// Without a shape it runs the layers that dominate issue 5's models. A benchmark, not a test.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "apps/bench_exec.h"
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

struct NamedShape {
  const char* name;
  Conv2dShape shape;
};

// {n, h, w, c_in, c_out, kh, kw, stride, pad_h, pad_w, groups}
const NamedShape kDefaultShapes[] = {
    {"resnet20 conv1 b128", {128, 28, 28, 3, 16, 3, 3, 1, 1, 1}},
    {"resnet20 layer1 b128", {128, 28, 28, 16, 16, 3, 3, 1, 1, 1}},
    {"resnet20 layer2 b128", {128, 14, 14, 32, 32, 3, 3, 1, 1, 1}},
    {"resnet20 layer3 b128", {128, 7, 7, 64, 64, 3, 3, 1, 1, 1}},
    {"resnet18 conv1 b32", {32, 224, 224, 3, 64, 7, 7, 2, 3, 3}},
    {"resnet18 layer1 b32", {32, 56, 56, 64, 64, 3, 3, 1, 1, 1}},
    {"resnet18 layer4 b32", {32, 7, 7, 512, 512, 3, 3, 1, 1, 1}},
    {"resnet50 layer1 1x1 b32", {32, 56, 56, 64, 256, 1, 1, 1, 0, 0}},
    {"resnet50 layer2 down b32", {32, 56, 56, 256, 512, 1, 1, 2, 0, 0}},
    {"resnet50 layer3 3x3 b32", {32, 14, 14, 256, 256, 3, 3, 1, 1, 1}},
    {"resnext50 layer1 3x3 g32 b16", {16, 56, 56, 128, 128, 3, 3, 1, 1, 1, 32}},
    {"resnext50 layer2 3x3 g32 b16", {16, 28, 28, 256, 256, 3, 3, 1, 1, 1, 32}},
    {"resnext50 layer3 3x3 g32 b16", {16, 14, 14, 512, 512, 3, 3, 1, 1, 1, 32}},
};

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

void bench(const char* name, const Conv2dShape& s, int repeats, const Exec& ex,
           xtrain::Precision precision) {
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
  std::printf(
      "%-26s fwd %8.2f ms %6.1f GFLOP/s  bwd_data %8.2f ms %6.1f  bwd_weight %8.2f ms %6.1f\n",
      name, forward * 1e3, gflop / forward, backward_data * 1e3, gflop / backward_data,
      backward_weight * 1e3, gflop / backward_weight);
}

}  // namespace

int main(int argc, char** argv) {
  xtrain::BenchExec bench_threads;
  const Exec ex = bench_threads.exec();
  const bool bf16 = argc > 1 && std::strcmp(argv[1], "--bf16") == 0;
  const xtrain::Precision precision =
      bf16 ? xtrain::Precision::kBFloat16 : xtrain::Precision::kFloat32;
  argc -= bf16;
  argv += bf16;
  if (argc >= 9 && argc <= 11) {
    int v[8];
    for (int i = 0; i < 8; ++i) v[i] = std::atoi(argv[i + 1]);
    const int groups = argc > 10 ? std::atoi(argv[10]) : 1;
    const Conv2dShape s{v[0], v[1], v[2], v[3], v[4], v[5], v[5], v[6], v[7], v[7], groups};
    if (groups < 1 || s.c_in % groups != 0 || s.c_out % groups != 0) {
      std::fprintf(stderr, "bench_conv: error: GROUPS must divide C_IN and C_OUT, got %d\n",
                   groups);
      return 2;
    }
    bench("shape", s, argc > 9 ? std::atoi(argv[9]) : 5, ex, precision);
    return 0;
  }
  if (argc > 1) {
    std::fprintf(stderr,
                 "usage: bench_conv [--bf16] [N H W C_IN C_OUT K STRIDE PAD [REPEATS [GROUPS]]]\n");
    return 2;
  }
  for (const NamedShape& named : kDefaultShapes) {
    bench(named.name, named.shape, 5, ex, precision);
  }
  return 0;
}
