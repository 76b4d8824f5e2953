// decode_cmyk_jpeg: JPEGs of 4 components (CMYK, or YCCK, which libjpeg turns into CMYK) decoded
// with libjpeg directly, to exactly the RGB pixels of PIL's convert("RGB"). It exists because
// OpenCV decodes them with its own CMYK to BGR arithmetic (dividing by 256), up to 2 levels off
// PIL, and never hands back the CMYK samples. PIL reads every 4-component JPEG as inverted CMYK
// (Adobe's convention, whether the file has Adobe's marker or not), then converts each pixel with
// R = (255 - K) - C * (255 - K) / 255, rounded as its integer MULDIV255 rounds.
// Not here: every other image (decode_image.h), the pixel limit (checked before, on the header).
#pragma once

#include <cstdint>
#include <opencv2/core.hpp>
#include <string>
#include <vector>

#include "data/image_header.h"

namespace xtrain {

// When `bytes` are a JPEG whose frame has 4 components: returns true with *rgb its 8-bit RGB
// pixels, or left empty and *problem saying why libjpeg failed. Returns false for every other
// image (and for a header libjpeg cannot read), which OpenCV decodes. `declared` is the size
// decode_image checked against the pixel limit: a header libjpeg reads otherwise is refused before
// any pixel is allocated.
bool decode_cmyk_jpeg(const std::vector<uint8_t>& bytes, const ImageSize& declared, cv::Mat* rgb,
                      std::string* problem);

}  // namespace xtrain
