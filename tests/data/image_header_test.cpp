// read_image_size: the size every format declares, read without decoding: files OpenCV writes
// (whose decoded size must match) and hand-made headers that declare huge images.
#include "data/image_header.h"

#include <gtest/gtest.h>

#include <opencv2/imgcodecs.hpp>
#include <string_view>

namespace xtrain {
namespace {

using Bytes = std::vector<uint8_t>;
using namespace std::string_view_literals;

// Hand-made headers are built from text and integers of n bytes in either byte order.
Bytes& operator<<(Bytes& bytes, std::string_view text) {
  bytes.insert(bytes.end(), text.begin(), text.end());
  return bytes;
}
// Byte i of value; past the 8 bytes of a uint64_t (a field padded with zeros) it is 0.
uint8_t byte_of(uint64_t value, int i) {
  return i < 8 ? static_cast<uint8_t>(value >> (8 * i)) : 0;
}

Bytes& big_endian(Bytes& bytes, uint64_t value, int n) {
  for (int i = n - 1; i >= 0; --i) bytes.push_back(byte_of(value, i));
  return bytes;
}
Bytes& little_endian(Bytes& bytes, uint64_t value, int n) {
  for (int i = 0; i < n; ++i) bytes.push_back(byte_of(value, i));
  return bytes;
}

ImageSize size_of(const Bytes& bytes) {
  ImageSize size;
  std::string problem;
  EXPECT_TRUE(read_image_size(bytes, &size, &problem)) << problem;
  return size;
}

std::string problem_of(const Bytes& bytes) {
  ImageSize size;
  std::string problem;
  EXPECT_FALSE(read_image_size(bytes, &size, &problem));
  return problem;
}

void expect_size(const Bytes& bytes, int64_t width, int64_t height) {
  const ImageSize size = size_of(bytes);
  EXPECT_EQ(size.width, width);
  EXPECT_EQ(size.height, height);
}

TEST(ImageHeader, ReadsTheSizeOfEveryFormatOpenCvWrites) {
  const cv::Mat bgr(23, 37, CV_8UC3, cv::Scalar(10, 20, 30));
  const cv::Mat bgra(23, 37, CV_8UC4, cv::Scalar(10, 20, 30, 40));
  const cv::Mat gray(23, 37, CV_8UC1, cv::Scalar(50));
  const cv::Mat gray16(23, 37, CV_16UC1, cv::Scalar(5000));
  struct Case {
    const char* ext;
    cv::Mat image;
    std::vector<int> params;
  };
  const Case cases[] = {
      {".jpg", bgr, {}},
      {".jpg", bgr, {cv::IMWRITE_JPEG_PROGRESSIVE, 1}},  // SOF2
      {".jpg", gray, {}},
      {".png", bgr, {}},
      {".png", gray16, {}},
      {".bmp", bgr, {}},
      {".ppm", bgr, {cv::IMWRITE_PXM_BINARY, 1}},  // P6
      {".ppm", bgr, {cv::IMWRITE_PXM_BINARY, 0}},  // P3
      {".pgm", gray, {}},
      {".pbm", gray, {}},
      {".tif", bgr, {}},
      {".tif", gray16, {}},
      {".webp", bgr, {}},                               // lossless: VP8L
      {".webp", bgr, {cv::IMWRITE_WEBP_QUALITY, 80}},   // lossy: VP8
      {".webp", bgra, {cv::IMWRITE_WEBP_QUALITY, 80}},  // lossy with alpha: VP8X
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.ext) + " " + std::to_string(c.params.empty() ? 0 : c.params[1]));
    Bytes bytes;
    ASSERT_TRUE(cv::imencode(c.ext, c.image, bytes, c.params));
    expect_size(bytes, 37, 23);
    const cv::Mat decoded = cv::imdecode(bytes, cv::IMREAD_UNCHANGED);
    EXPECT_EQ(decoded.cols, 37);
    EXPECT_EQ(decoded.rows, 23);
  }
}

TEST(ImageHeader, WebPKindsAreTheOnesMeant) {
  Bytes lossless, lossy, alpha;
  cv::imencode(".webp", cv::Mat::zeros(2, 2, CV_8UC3), lossless);
  cv::imencode(".webp", cv::Mat::zeros(2, 2, CV_8UC3), lossy, {cv::IMWRITE_WEBP_QUALITY, 80});
  cv::imencode(".webp", cv::Mat::zeros(2, 2, CV_8UC4), alpha, {cv::IMWRITE_WEBP_QUALITY, 80});
  EXPECT_EQ(std::string(lossless.begin() + 12, lossless.begin() + 16), "VP8L");
  EXPECT_EQ(std::string(lossy.begin() + 12, lossy.begin() + 16), "VP8 ");
  EXPECT_EQ(std::string(alpha.begin() + 12, alpha.begin() + 16), "VP8X");
}

TEST(ImageHeader, PngIhdr) {
  Bytes png;
  big_endian(png << "\x89PNG\r\n\x1A\n"sv, 13, 4) << "IHDR";
  big_endian(big_endian(png, 30000, 4), 20000, 4) << "\x08\0\0\0\0"sv;
  expect_size(png, 30000, 20000);
  EXPECT_EQ(problem_of(Bytes(png.begin(), png.begin() + 20)), "truncated PNG header");
  Bytes not_ihdr = png;
  not_ihdr[12] = 'X';
  EXPECT_EQ(problem_of(not_ihdr), "invalid PNG header");
  Bytes no_width = png;
  no_width[18] = no_width[19] = 0;
  EXPECT_EQ(problem_of(no_width), "the PNG header declares 0x20000 pixels");
}

// SOI, a comment holding a fake 1x1 frame header (skipped by its length), fill bytes, SOF0.
TEST(ImageHeader, JpegFrameHeaderAfterOtherSegments) {
  Bytes jpeg;
  jpeg << "\xFF\xD8"sv
       << "\xFF\xFE\x00\x0D"sv
       << "\xFF\xC0\x00\x0B\x08\x00\x01\x00\x01\x01\x01"sv;
  big_endian(big_endian(jpeg << "\xFF\xFF\xC0\x00\x0B\x08"sv, 50000, 2), 65535, 2) << "\x01\x01"sv;
  expect_size(jpeg, 65535, 50000);

  Bytes scan_first;
  scan_first << "\xFF\xD8\xFF\xDA\x00\x02"sv;
  EXPECT_EQ(problem_of(scan_first), "invalid JPEG header");
  EXPECT_EQ(problem_of(Bytes(jpeg.begin(), jpeg.begin() + 10)), "truncated JPEG header");
}

TEST(ImageHeader, BmpBothDibHeaderKinds) {
  Bytes windows;
  little_endian(windows << "BM"sv, 0, 12);
  little_endian(windows, 40, 4);
  little_endian(little_endian(windows, 100000, 4), static_cast<uint32_t>(-70000), 4);  // top-down
  little_endian(windows, 0, 16);
  expect_size(windows, 100000, 70000);

  Bytes os2;
  little_endian(os2 << "BM"sv, 0, 12);
  little_endian(little_endian(little_endian(os2, 12, 4), 60000, 2), 50000, 2);
  little_endian(os2, 0, 4);
  expect_size(os2, 60000, 50000);
}

TEST(ImageHeader, PnmWithCommentsAndHugeNumbers) {
  Bytes pnm;
  pnm << "P5\n# made by hand\n  123456 # the height follows\n654321\n255\n"sv;
  expect_size(pnm, 123456, 654321);
  Bytes beyond_int64;
  beyond_int64 << "P6 99999999999999999999999999 2 255\n"sv;
  EXPECT_GT(size_of(beyond_int64).width, int64_t{1} << 32);
  Bytes letters;
  letters << "P6 wide 2 255\n"sv;
  EXPECT_EQ(problem_of(letters), "invalid PNM header");
}

// "RIFF", size, "WEBP", then a chunk of the given kind and its data.
Bytes webp(std::string_view kind, const Bytes& data) {
  Bytes bytes;
  little_endian(bytes << "RIFF"sv, 12 + data.size(), 4) << "WEBP"sv << kind;
  little_endian(bytes, data.size(), 4);
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

TEST(ImageHeader, WebPEachChunkKind) {
  Bytes vp8;  // frame tag, start code, 14-bit sides with 2 scale bits set on the width
  little_endian(little_endian(vp8 << "\0\0\0\x9D\x01\x2A"sv, 0xC000 | 16383, 2), 12000, 2);
  expect_size(webp("VP8 ", vp8), 16383, 12000);
  Bytes bad_start_code = webp("VP8 ", vp8);
  bad_start_code[23] = 0;
  EXPECT_EQ(problem_of(bad_start_code), "invalid WebP header");

  Bytes vp8l;  // signature, then width-1 and height-1 in 14 bits each
  little_endian(vp8l << "\x2F"sv, 16383 | uint64_t{9999} << 14, 4);
  expect_size(webp("VP8L", vp8l), 16384, 10000);

  Bytes vp8x;  // flags and reserved, then canvas width-1 and height-1 in 24 bits each
  little_endian(little_endian(vp8x << "\x10\0\0\0"sv, 16777215, 3), 99999, 3);
  expect_size(webp("VP8X", vp8x), 16777216, 100000);

  EXPECT_EQ(problem_of(webp("ALPH", vp8x)), "invalid WebP header");
}

// A TIFF (or BigTIFF) whose first IFD holds ImageWidth as a LONG and ImageLength as a SHORT,
// after an unrelated entry.
Bytes tiff(bool big, bool bigtiff, uint32_t width, uint16_t height) {
  auto put = [&](Bytes& b, uint64_t value, int n) -> Bytes& {
    return big ? big_endian(b, value, n) : little_endian(b, value, n);
  };
  const int offset_bytes = bigtiff ? 8 : 4;
  Bytes bytes;
  bytes << (big ? "MM"sv : "II"sv);
  put(bytes, bigtiff ? 43 : 42, 2);
  if (bigtiff) put(put(bytes, 8, 2), 0, 2);
  put(bytes, bigtiff ? 16 : 8, offset_bytes);  // the first IFD follows
  put(bytes, 3, bigtiff ? 8 : 2);              // entries
  const auto entry = [&](uint16_t tag, uint16_t type, uint64_t value, int value_bytes) {
    put(put(put(bytes, tag, 2), type, 2), 1, offset_bytes);  // tag, type, count 1
    put(bytes, value, value_bytes);                          // left-justified value
    put(bytes, 0, offset_bytes - value_bytes);
  };
  entry(254, 4, 0, 4);          // NewSubfileType
  entry(256, 4, width, 4);      // ImageWidth, LONG
  entry(257, 3, height, 2);     // ImageLength, SHORT
  put(bytes, 0, offset_bytes);  // no next IFD
  return bytes;
}

TEST(ImageHeader, TiffBothByteOrdersAndBigTiff) {
  expect_size(tiff(/*big=*/false, /*bigtiff=*/false, 100000, 60000), 100000, 60000);
  expect_size(tiff(/*big=*/true, /*bigtiff=*/false, 100000, 60000), 100000, 60000);
  expect_size(tiff(/*big=*/false, /*bigtiff=*/true, 100000, 60000), 100000, 60000);
  expect_size(tiff(/*big=*/true, /*bigtiff=*/true, 100000, 60000), 100000, 60000);
  Bytes far_ifd = tiff(/*big=*/false, /*bigtiff=*/false, 1, 1);
  far_ifd[4] = 0xFF;  // the IFD offset points past the end
  EXPECT_EQ(problem_of(far_ifd), "truncated TIFF header");
}

TEST(ImageHeader, UnknownBytesAreNotAnImage) {
  EXPECT_EQ(problem_of({}), "not a decodable image");
  Bytes text;
  text << "hello\n"sv;
  EXPECT_EQ(problem_of(text), "not a decodable image");
  Bytes gif;  // a format OpenCV does not decode
  gif << "GIF89a\x01\0\x01\0"sv;
  EXPECT_EQ(problem_of(gif), "not a decodable image");
}

}  // namespace
}  // namespace xtrain
