#include "data/decode_cmyk_jpeg.h"

#include <fmt/format.h>

#include <csetjmp>
// jpeglib.h uses FILE and size_t without including their headers.
// clang-format off
#include <cstdio>
#include <jpeglib.h>
// clang-format on

namespace xtrain {
namespace {

// libjpeg reports a fatal error by calling error_exit, which must not return and must not throw
// through libjpeg's C frames: it jumps back to the setjmp of the function below that called
// libjpeg, keeping libjpeg's message. Those functions hold no C++ object with a destructor, so the
// jump skips none.
struct JpegErrors {
  jpeg_error_mgr manager;
  std::jmp_buf return_point;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void jump_back(j_common_ptr info) {
  JpegErrors* errors = reinterpret_cast<JpegErrors*>(info->err);  // manager is its first member
  info->err->format_message(info, errors->message);
  std::longjmp(errors->return_point, 1);
}

// Warnings, about corrupt data libjpeg decodes anyway as PIL and OpenCV do, are not printed.
void keep_quiet(j_common_ptr) {}

// A libjpeg decompressor, destroyed however decoding ends, also by a C++ exception (out of memory)
// thrown between libjpeg calls. Every other libjpeg call is made by read_header or decode_rows,
// which set the return point first.
struct Jpeg {
  jpeg_decompress_struct info{};  // zeroed: destroying it is safe even if creating it failed
  JpegErrors errors{};

  Jpeg() {
    info.err = jpeg_std_error(&errors.manager);
    errors.manager.error_exit = jump_back;
    errors.manager.output_message = keep_quiet;
  }
  ~Jpeg() { jpeg_destroy_decompress(&info); }
  Jpeg(const Jpeg&) = delete;
  Jpeg& operator=(const Jpeg&) = delete;
};

// False, with jpeg->errors.message, when libjpeg fails.
bool read_header(Jpeg* jpeg, const std::vector<uint8_t>& bytes) {
  if (setjmp(jpeg->errors.return_point)) return false;
  jpeg_create_decompress(&jpeg->info);
  jpeg_mem_src(&jpeg->info, bytes.data(), bytes.size());
  jpeg_read_header(&jpeg->info, TRUE);
  return true;
}

// a * b / 255 rounded to the nearest integer, for a and b in 0..255, as PIL's MULDIV255 computes
// it.
int multiply_divide_255(int a, int b) {
  const int product = a * b + 128;
  return ((product >> 8) + product) >> 8;
}

// One row of libjpeg's CMYK samples to RGB as PIL converts them. PIL inverts the samples (c
// becomes C = 255 - c), so its 255 - K is libjpeg's k.
void cmyk_row_to_rgb(const uint8_t* cmyk, int width, uint8_t* rgb) {
  for (int x = 0; x < width; ++x, cmyk += 4, rgb += 3) {
    const int white = cmyk[3];
    for (int i = 0; i < 3; ++i) {
      rgb[i] = static_cast<uint8_t>(white - multiply_divide_255(255 - cmyk[i], white));
    }
  }
}

// Decodes the image whose header read_header read into `rgb`, sized to it, row by row through
// `cmyk_row` (4 bytes a pixel). False, with jpeg->errors.message, when libjpeg fails.
bool decode_rows(Jpeg* jpeg, cv::Mat* rgb, uint8_t* cmyk_row) {
  if (setjmp(jpeg->errors.return_point)) return false;
  jpeg->info.out_color_space = JCS_CMYK;  // from YCCK too
  jpeg_start_decompress(&jpeg->info);
  while (jpeg->info.output_scanline < jpeg->info.output_height) {
    uint8_t* out = rgb->ptr<uint8_t>(static_cast<int>(jpeg->info.output_scanline));
    jpeg_read_scanlines(&jpeg->info, &cmyk_row, 1);
    cmyk_row_to_rgb(cmyk_row, rgb->cols, out);
  }
  jpeg_finish_decompress(&jpeg->info);
  return true;
}

}  // namespace

bool decode_cmyk_jpeg(const std::vector<uint8_t>& bytes, const ImageSize& declared, cv::Mat* rgb,
                      std::string* problem) {
  Jpeg jpeg;
  if (!read_header(&jpeg, bytes) || jpeg.info.num_components != 4) return false;
  const int64_t width = jpeg.info.image_width, height = jpeg.info.image_height;
  if (width != declared.width || height != declared.height) {
    *problem = fmt::format("libjpeg reads {}x{} pixels where the header declares {}x{}", width,
                           height, declared.width, declared.height);
    return true;
  }
  cv::Mat pixels(static_cast<int>(height), static_cast<int>(width), CV_8UC3);
  std::vector<uint8_t> cmyk_row(width * 4);
  if (!decode_rows(&jpeg, &pixels, cmyk_row.data())) {
    *problem = fmt::format("corrupt JPEG: {}", jpeg.errors.message);
    return true;
  }
  *rgb = pixels;
  return true;
}

}  // namespace xtrain
