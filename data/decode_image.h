// decode_image: an encoded image file's bytes to 8-bit RGB pixels with OpenCV. Whatever the file
// holds (grayscale, 16 bits per channel, a palette, an alpha channel) comes out as 3 channels of
// 8 bits in RGB order, as PIL's convert("RGB") gives torchvision: OpenCV's BGR is reordered,
// 16-bit values are scaled by 255/65535, alpha is dropped (not blended). EXIF orientation is
// ignored, as PIL does. Truncated JPEGs, which libjpeg would pad with gray, count as unreadable.
// Not here: reading files, resizing (resample.h).
#pragma once

#include <cstdint>
#include <opencv2/core.hpp>
#include <string>
#include <vector>

namespace xtrain {

// Returns an 8-bit 3-channel RGB image, or an empty Mat when the bytes are not a decodable image;
// then *problem says why.
cv::Mat decode_image(const std::vector<uint8_t>& bytes, std::string* problem);

}  // namespace xtrain
