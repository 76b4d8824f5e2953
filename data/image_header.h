// image_header: the pixel size an image file declares, read from its header without decoding, so
// an image too large to decode is refused before OpenCV allocates its pixels, and a PNM's sample
// range, which OpenCV does not scale. Knows the formats of torchvision's image extensions, told
// apart by their first bytes as OpenCV does (never by the file name): JPEG (the first SOFn frame
// header, segments walked as libjpeg does), PNG (IHDR), BMP (the DIB header), PNM (P1-P6), WebP
// (VP8, VP8L or VP8X) and TIFF or BigTIFF (the first IFD's ImageWidth and ImageLength, either
// byte order).
// Not here: decoding (decode_image.h), the limit itself (ImageLimits).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xtrain {

struct ImageSize {
  int64_t width = 0;
  int64_t height = 0;
  int64_t pnm_max_value = 0;  // a PNM's largest sample value (maxval); 0 in other formats
};

// Reads the size `bytes` declare into *size (both sides >= 1). False with *problem set when the
// bytes are none of these formats ("not a decodable image"), their header is cut short or
// invalid, or it declares an empty image.
bool read_image_size(const std::vector<uint8_t>& bytes, ImageSize* size, std::string* problem);

}  // namespace xtrain
