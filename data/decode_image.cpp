#include "data/decode_image.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <new>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "data/decode_cmyk_jpeg.h"
#include "data/image_header.h"

namespace xtrain {
namespace {

// libjpeg decodes a JPEG cut short by padding it with gray and a warning, which would train on
// garbage. The main image's last scan (marker FF DA) must be followed by the end marker (FF D9);
// scanning from the end meets FF D9 first in a whole file (even with trailing bytes), FF DA first
// in a truncated one (entropy-coded data never holds a bare FF: it is stuffed as FF 00).
bool is_truncated_jpeg(const std::vector<uint8_t>& bytes) {
  if (bytes.size() < 2 || bytes[0] != 0xFF || bytes[1] != 0xD8) return false;  // not a JPEG
  for (size_t i = bytes.size() - 1; i > 2; --i) {
    if (bytes[i - 1] != 0xFF) continue;
    if (bytes[i] == 0xD9) return false;
    if (bytes[i] == 0xDA) return true;
  }
  return true;
}

// PIL reads a 16-bit color sample by its high byte.
cv::Mat high_bytes(const cv::Mat& image) {
  cv::Mat out(image.size(), CV_MAKETYPE(CV_8U, image.channels()));
  const int samples = image.cols * image.channels();
  for (int y = 0; y < image.rows; ++y) {
    const uint16_t* in = image.ptr<uint16_t>(y);
    uint8_t* row = out.ptr<uint8_t>(y);
    for (int i = 0; i < samples; ++i) row[i] = static_cast<uint8_t>(in[i] >> 8);
  }
  return out;
}

// PIL scales a PNM's samples from 0..maxval, rounding as Python's round() does (half to even):
// to 0..255, but 16-bit grayscale (mode I) to 0..65535, which convert("RGB") then clips to 255.
// OpenCV keeps the samples as the file holds them.
cv::Mat scale_pnm(const cv::Mat& image, int64_t max_value) {
  const double top = image.depth() == CV_16U && image.channels() == 1 ? 65535 : 255;
  cv::Mat out(image.size(), CV_MAKETYPE(CV_8U, image.channels()));
  const int samples = image.cols * image.channels();
  for (int y = 0; y < image.rows; ++y) {
    uint8_t* row = out.ptr<uint8_t>(y);
    for (int i = 0; i < samples; ++i) {
      const double sample =
          image.depth() == CV_16U ? image.ptr<uint16_t>(y)[i] : image.ptr<uint8_t>(y)[i];
      const double scaled = std::min(top, std::nearbyint(sample / max_value * top));
      row[i] = static_cast<uint8_t>(std::min(255.0, scaled));
    }
  }
  return out;
}

// 8 bits per sample as PIL's convert("RGB") makes them (PNMs aside). PIL reads 16-bit grayscale as
// 32-bit integers (mode I), which the conversion clips to 255; 16-bit color keeps its high bytes.
cv::Mat to_8_bits(const cv::Mat& image) {
  if (image.depth() == CV_8U) return image;
  cv::Mat converted;
  if (image.depth() != CV_16U) return converted;  // other depths (float TIFFs): unsupported
  if (image.channels() == 1) {
    image.convertTo(converted, CV_8U);  // saturates: values over 255 become 255
    return converted;
  }
  return high_bytes(image);
}

cv::Mat to_rgb(const cv::Mat& image) {
  cv::Mat rgb;
  if (image.empty()) return rgb;
  switch (image.channels()) {
    case 1:
      cv::cvtColor(image, rgb, cv::COLOR_GRAY2RGB);
      break;
    case 3:
      cv::cvtColor(image, rgb, cv::COLOR_BGR2RGB);
      break;
    case 4:
      cv::cvtColor(image, rgb, cv::COLOR_BGRA2RGB);
      break;
  }
  return rgb;
}

}  // namespace

cv::Mat decode_image(const std::vector<uint8_t>& bytes, int64_t max_pixels, std::string* problem) {
  if (bytes.empty()) {
    *problem = "empty file";
    return {};
  }
  // OpenCV's own pixel limit (OPENCV_IO_MAX_IMAGE_PIXELS) is read once, as the library loads
  // before main: it cannot be set from here. Checking the header instead also keeps every format
  // the header reader does not know away from OpenCV.
  ImageSize size;
  if (!read_image_size(bytes, &size, problem)) return {};
  if (size.width > max_pixels / size.height) {  // width * height > max_pixels, without overflow
    *problem = fmt::format("{}x{} pixels is over --max_image_pixels={}", size.width, size.height,
                           max_pixels);
    return {};
  }
  if (is_truncated_jpeg(bytes)) {
    *problem = "truncated JPEG";
    return {};
  }
  const std::string out_of_memory =
      fmt::format("out of memory decoding {}x{} pixels", size.width, size.height);
  try {
    cv::Mat rgb;
    if (decode_cmyk_jpeg(bytes, size, &rgb, problem)) return rgb;
    // IMREAD_UNCHANGED keeps 16-bit depth and whether the image is grayscale, which PIL treats
    // differently, and, like PIL, does not apply EXIF orientation.
    const cv::Mat decoded = cv::imdecode(bytes, cv::IMREAD_UNCHANGED);
    if (decoded.empty()) {
      *problem = "not a decodable image";
      return {};
    }
    const bool scaled_pnm = size.pnm_max_value > 0 && decoded.depth() <= CV_16U;
    rgb = to_rgb(scaled_pnm ? scale_pnm(decoded, size.pnm_max_value) : to_8_bits(decoded));
    if (rgb.empty()) *problem = "unsupported pixel format";
    return rgb;
  } catch (const std::bad_alloc&) {
    *problem = out_of_memory;
  } catch (const cv::Exception& e) {
    *problem = e.code == cv::Error::StsNoMem ? out_of_memory : "not a decodable image";
  }
  return {};
}

}  // namespace xtrain
