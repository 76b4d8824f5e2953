// Average pooling kernels for AvgPool2d and AdaptiveAvgPool2d. NHWC: x, dx [N, H, W, C]; y, dy
// [N, OH, OW, C]. Each output pixel averages a rectangle of input pixels (its bin):
// - kernel > 0 (torch.nn.AvgPool2d, count_include_pad=True, floor mode): row bin of oh is
//   [oh * stride - pad, oh * stride - pad + kernel) clipped to the image, and the sum is divided
//   by kernel * kernel whatever the clipping (padding counts as zeros);
// - kernel == 0 (torch.nn.AdaptiveAvgPool2d((OH, OW))): row bin of oh is
//   [floor(oh * H / OH), ceil((oh + 1) * H / OH)), divided by the bin's own area. Bins may overlap
//   (H not a multiple of OH) or repeat rows (H < OH).
#pragma once

#include "lib/parallel/exec.h"

namespace xtrain::kernels {

struct AvgPool2dShape {
  int n, h, w, c;
  int out_h, out_w;
  int kernel = 0, stride = 1, pad = 0;  // kernel 0: adaptive bins

  struct Bin {
    int begin, end;
  };
  Bin row_bin(int oh) const { return bin(oh, h, out_h); }
  Bin col_bin(int ow) const { return bin(ow, w, out_w); }
  float divisor(Bin rows, Bin cols) const {
    return kernel > 0 ? float(kernel * kernel)
                      : float((rows.end - rows.begin) * (cols.end - cols.begin));
  }

 private:
  Bin bin(int o, int in, int out) const {
    if (kernel == 0) return {o * in / out, ((o + 1) * in + out - 1) / out};
    const int begin = o * stride - pad;
    return {begin < 0 ? 0 : begin, begin + kernel > in ? in : begin + kernel};
  }
};

// y = the mean of each bin. y is overwritten.
void avg_pool2d_forward(const AvgPool2dShape& s, const float* x, float* y, const Exec& ex);

// dx[pixel] = sum over the bins holding it of dy / divisor. dx is overwritten.
void avg_pool2d_backward(const AvgPool2dShape& s, const float* dy, float* dx, const Exec& ex);

}  // namespace xtrain::kernels
