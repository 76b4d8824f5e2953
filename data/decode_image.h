// decode_image: an encoded image file's bytes to 8-bit RGB pixels with OpenCV. Whatever the file
// holds (grayscale, 16 bits per channel, a palette, an alpha channel, CMYK) comes out as the 3
// channels of 8 bits in RGB order that torchvision's loader, PIL's convert("RGB"), gives:
// OpenCV's BGR is reordered, 16-bit grayscale is clipped to 255 and 16-bit color keeps its high
// bytes, a PNM's samples are scaled from 0..maxval, alpha is dropped (not blended), and CMYK
// JPEGs go to libjpeg directly (decode_cmyk_jpeg.h), as OpenCV's own CMYK conversion is not PIL's.
// EXIF orientation is ignored, as PIL does. Truncated JPEGs, which libjpeg would pad with gray,
// count as unreadable, and so do images whose header declares more than max_pixels (checked
// before decoding: a small file can declare billions of pixels) or whose decoding runs out of
// memory.
// Not here: reading files (read_image_file.h), the header (image_header.h), resizing.
#pragma once

#include <cstdint>
#include <opencv2/core.hpp>
#include <string>
#include <vector>

namespace xtrain {

// Returns an 8-bit 3-channel RGB image, or an empty Mat when the bytes are not a decodable image
// of at most max_pixels; then *problem says why.
cv::Mat decode_image(const std::vector<uint8_t>& bytes, int64_t max_pixels, std::string* problem);

}  // namespace xtrain
