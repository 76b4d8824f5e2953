#include "lib/kernels/reference/conv2d.h"

#include <vector>

namespace xtrain::kernels::reference {
namespace {

// Calls fn(x index, weight index, y index) for every (output pixel, tap, input channel, output
// channel of the input channel's group) whose input pixel is inside the image.
template <typename Fn>
void for_each_product(const Conv2dShape& s, Fn&& fn) {
  for (int n = 0; n < s.n; ++n)
    for (int oh = 0; oh < s.out_h(); ++oh)
      for (int ow = 0; ow < s.out_w(); ++ow)
        for (int ky = 0; ky < s.kh; ++ky)
          for (int kx = 0; kx < s.kw; ++kx) {
            const int ih = oh * s.stride - s.pad_h + ky, iw = ow * s.stride - s.pad_w + kx;
            if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) continue;
            for (int ci = 0; ci < s.c_in; ++ci) {
              const int g = ci / s.group_in(), i = ci % s.group_in();
              for (int co = g * s.group_out(); co < (g + 1) * s.group_out(); ++co) {
                fn((((int64_t{n} * s.h + ih) * s.w + iw) * s.c_in + ci),
                   ((int64_t{ky} * s.kw + kx) * s.group_in() + i) * s.c_out + co,
                   ((int64_t{n} * s.out_h() + oh) * s.out_w() + ow) * s.c_out + co);
              }
            }
          }
}

}  // namespace

void conv2d_forward(const Conv2dShape& s, const float* x, const float* weight, const float* bias,
                    float* y) {
  std::vector<double> acc(s.rows() * s.c_out, 0.0);
  for_each_product(
      s, [&](int64_t xi, int64_t wi, int64_t yi) { acc[yi] += double{x[xi]} * weight[wi]; });
  for (int64_t i = 0; i < static_cast<int64_t>(acc.size()); ++i) {
    y[i] = static_cast<float>(acc[i] + (bias ? bias[i % s.c_out] : 0.0f));
  }
}

void conv2d_backward_data(const Conv2dShape& s, const float* dy, const float* weight, float* dx) {
  std::vector<double> acc(int64_t{s.n} * s.h * s.w * s.c_in, 0.0);
  for_each_product(
      s, [&](int64_t xi, int64_t wi, int64_t yi) { acc[xi] += double{dy[yi]} * weight[wi]; });
  for (size_t i = 0; i < acc.size(); ++i) dx[i] = static_cast<float>(acc[i]);
}

void conv2d_backward_weight(const Conv2dShape& s, const float* x, const float* dy, float* dweight,
                            float* dbias) {
  std::vector<double> acc(s.patch() * s.c_out, 0.0);
  for_each_product(s,
                   [&](int64_t xi, int64_t wi, int64_t yi) { acc[wi] += double{x[xi]} * dy[yi]; });
  for (size_t i = 0; i < acc.size(); ++i) dweight[i] += static_cast<float>(acc[i]);
  if (dbias == nullptr) return;
  for (int co = 0; co < s.c_out; ++co) {
    double sum = 0.0;
    for (int64_t r = 0; r < s.rows(); ++r) sum += dy[r * s.c_out + co];
    dbias[co] += static_cast<float>(sum);
  }
}

}  // namespace xtrain::kernels::reference
