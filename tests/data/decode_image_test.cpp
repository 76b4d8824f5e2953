// decode_image: every pixel format becomes 8-bit RGB (OpenCV's BGR reordered), and bad bytes are
// reported, not decoded into garbage; images over the pixel cap are refused from their header,
// and running out of memory while decoding is a problem reported, not an exception.
#include "data/decode_image.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <opencv2/imgcodecs.hpp>
#include <sstream>

#include "data/image_limits.h"

namespace xtrain {
namespace {

constexpr int64_t kMaxPixels = ImageLimits{}.max_pixels;

std::vector<uint8_t> encode(const std::string& ext, const cv::Mat& image) {
  std::vector<uint8_t> bytes;
  EXPECT_TRUE(cv::imencode(ext, image, bytes));
  return bytes;
}

cv::Vec3b pixel(const cv::Mat& rgb, int y, int x) { return rgb.at<cv::Vec3b>(y, x); }

cv::Mat decode_ok(const std::vector<uint8_t>& bytes) {
  std::string problem;
  cv::Mat rgb = decode_image(bytes, kMaxPixels, &problem);
  EXPECT_FALSE(rgb.empty()) << problem;
  if (!rgb.empty()) {
    EXPECT_EQ(rgb.type(), CV_8UC3);
  }
  return rgb;
}

std::string decode_problem(const std::vector<uint8_t>& bytes, int64_t max_pixels = kMaxPixels) {
  std::string problem;
  EXPECT_TRUE(decode_image(bytes, max_pixels, &problem).empty());
  return problem;
}

TEST(DecodeImage, ColorComesOutRgb) {
  cv::Mat bgr(1, 2, CV_8UC3);
  bgr.at<cv::Vec3b>(0, 0) = {10, 20, 30};  // B, G, R
  bgr.at<cv::Vec3b>(0, 1) = {200, 100, 0};
  const cv::Mat rgb = decode_ok(encode(".png", bgr));
  EXPECT_EQ(pixel(rgb, 0, 0), cv::Vec3b(30, 20, 10));
  EXPECT_EQ(pixel(rgb, 0, 1), cv::Vec3b(0, 100, 200));
}

TEST(DecodeImage, GrayscaleIsCopiedToThreeChannels) {
  cv::Mat gray(1, 2, CV_8UC1);
  gray.at<uint8_t>(0, 0) = 7;
  gray.at<uint8_t>(0, 1) = 250;
  const cv::Mat rgb = decode_ok(encode(".png", gray));
  EXPECT_EQ(pixel(rgb, 0, 0), cv::Vec3b(7, 7, 7));
  EXPECT_EQ(pixel(rgb, 0, 1), cv::Vec3b(250, 250, 250));
}

TEST(DecodeImage, AlphaIsDropped) {
  cv::Mat bgra(1, 1, CV_8UC4, cv::Scalar(1, 2, 3, 0));  // fully transparent: PIL keeps the color
  EXPECT_EQ(pixel(decode_ok(encode(".png", bgra)), 0, 0), cv::Vec3b(3, 2, 1));
}

// As PIL reads them: 16-bit grayscale as 32-bit integers that convert("RGB") clips to 255, and
// 16-bit color by its high bytes.
TEST(DecodeImage, SixteenBitsBecome8AsPilMakesThem) {
  cv::Mat gray16(1, 4, CV_16UC1);
  gray16.at<uint16_t>(0, 0) = 65535;
  gray16.at<uint16_t>(0, 1) = 255;
  gray16.at<uint16_t>(0, 2) = 256;
  gray16.at<uint16_t>(0, 3) = 7;
  const cv::Mat rgb = decode_ok(encode(".png", gray16));
  EXPECT_EQ(pixel(rgb, 0, 0), cv::Vec3b(255, 255, 255));
  EXPECT_EQ(pixel(rgb, 0, 1), cv::Vec3b(255, 255, 255));
  EXPECT_EQ(pixel(rgb, 0, 2), cv::Vec3b(255, 255, 255));
  EXPECT_EQ(pixel(rgb, 0, 3), cv::Vec3b(7, 7, 7));

  cv::Mat bgr16(1, 1, CV_16UC3, cv::Scalar(255, 256 * 20 + 255, 65535));
  EXPECT_EQ(pixel(decode_ok(encode(".png", bgr16)), 0, 0), cv::Vec3b(255, 20, 0));
}

// The bytes of a file under tests/data/fixtures/modes/.
std::vector<uint8_t> fixture(const std::string& name) {
  std::ifstream in(XTRAIN_SOURCE_DIR "/tests/data/fixtures/modes/" + name, std::ios::binary);
  EXPECT_TRUE(in) << name;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A binary PPM's pixels as an 8-bit RGB Mat.
cv::Mat read_ppm(const std::vector<uint8_t>& bytes) {
  std::istringstream in(std::string(bytes.begin(), bytes.end()));
  std::string magic;
  int width = 0, height = 0, max_value = 0;
  in >> magic >> width >> height >> max_value;
  in.get();  // the one whitespace byte before the pixels
  cv::Mat rgb(height, width, CV_8UC3);
  in.read(reinterpret_cast<char*>(rgb.data), static_cast<std::streamsize>(rgb.total() * 3));
  EXPECT_TRUE(magic == "P6" && max_value == 255 && in) << "not an 8-bit binary PPM";
  return rgb;
}

// Every mode an ImageFolder may hold decodes to the pixels of torchvision's PIL loader,
// Image.open(f).convert("RGB"), saved beside each file by scripts/make_image_mode_fixtures.py.
TEST(DecodeImage, EveryModeGivesThePixelsOfPil) {
  for (const char* file : {"gray16.png",
                           "rgb16.png",
                           "rgba16.png",
                           "gray_alpha16.png",
                           "gray4.png",
                           "bilevel.png",
                           "gray_alpha.png",
                           "gray_transparent.png",
                           "rgba.png",
                           "palette.png",
                           "palette_transparent.png",
                           "gray16.pgm",
                           "gray_max1000.pgm",
                           "gray_max15.pgm",
                           "rgb16.ppm",
                           "rgb_max1000.ppm",
                           "rgb_max1000_plain.ppm",
                           "bilevel.pbm",
                           "rgb.jpg",
                           "gray.jpg",
                           "cmyk.jpg",
                           "cmyk_no_adobe.jpg",
                           "cmyk_progressive.jpg"}) {
    SCOPED_TRACE(file);
    const cv::Mat expected = read_ppm(fixture(std::string(file) + ".ppm"));
    const cv::Mat rgb = decode_ok(fixture(file));
    ASSERT_EQ(rgb.size(), expected.size());
    cv::Mat difference;
    cv::absdiff(rgb, expected, difference);
    EXPECT_EQ(cv::countNonZero(difference.reshape(1)), 0);
  }
}

// Where a baseline JPEG's frame header starts: its marker FF C0, the segment's length (2 bytes),
// the bits of a sample (1), the height (2) and the width (2).
size_t frame_header(const std::vector<uint8_t>& jpeg) {
  const uint8_t sof0[] = {0xFF, 0xC0};
  const size_t frame = std::search(jpeg.begin(), jpeg.end(), sof0, sof0 + 2) - jpeg.begin();
  EXPECT_LT(frame + 8, jpeg.size()) << "no frame header";
  return frame;
}

// The cmyk.jpg fixture, its frame header rewritten to declare width x height pixels (each < 2^16).
std::vector<uint8_t> cmyk_jpeg_declaring(int width, int height) {
  std::vector<uint8_t> jpeg = fixture("cmyk.jpg");
  const size_t frame = frame_header(jpeg);
  const uint8_t size[] = {uint8_t(height >> 8), uint8_t(height), uint8_t(width >> 8),
                          uint8_t(width)};
  std::copy(size, size + 4, jpeg.begin() + frame + 5);
  return jpeg;
}

// A CMYK JPEG goes to libjpeg directly: bad ones are refused as every other image is, never a
// crash or an exit from libjpeg's error handler.
TEST(DecodeImage, BadCmykJpegsSayWhy) {
  const std::vector<uint8_t> cmyk = fixture("cmyk.jpg");
  EXPECT_EQ(decode_problem({cmyk.begin(), cmyk.end() - 40}), "truncated JPEG");

  EXPECT_EQ(cmyk_jpeg_declaring(7, 5), cmyk);
  EXPECT_EQ(decode_problem(cmyk_jpeg_declaring(60000, 60000)),
            "60000x60000 pixels is over --max_image_pixels=178956970");

  // A second frame header before the end marker: libjpeg fails after decoding every row, and PIL
  // refuses the file too ("broken data stream").
  std::vector<uint8_t> two_frames = cmyk;
  const size_t frame = frame_header(cmyk);
  const size_t frame_length = 2 + (cmyk[frame + 2] << 8 | cmyk[frame + 3]);
  two_frames.insert(two_frames.end() - 2, cmyk.begin() + frame,
                    cmyk.begin() + frame + frame_length);
  EXPECT_EQ(decode_problem(two_frames),
            "corrupt JPEG: Invalid JPEG file structure: two SOF markers");
}

TEST(DecodeImage, PaletteBecomesItsColors) {
  // A 2x1 PNG, color type 3, palette {0: (10, 20, 30), 1: (200, 100, 50)}, pixels [0, 1].
  const std::vector<uint8_t> png = {
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
      0x52, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x08, 0x03, 0x00, 0x00, 0x00, 0xc3,
      0xfc, 0x8f, 0xb8, 0x00, 0x00, 0x00, 0x06, 0x50, 0x4c, 0x54, 0x45, 0x0a, 0x14, 0x1e, 0xc8,
      0x64, 0x32, 0x77, 0xa0, 0xb3, 0x9c, 0x00, 0x00, 0x00, 0x0b, 0x49, 0x44, 0x41, 0x54, 0x78,
      0x9c, 0x63, 0x60, 0x60, 0x04, 0x00, 0x00, 0x04, 0x00, 0x02, 0xbf, 0x7a, 0x3f, 0x4a, 0x00,
      0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};
  const cv::Mat rgb = decode_ok(png);
  ASSERT_EQ(rgb.cols, 2);
  EXPECT_EQ(pixel(rgb, 0, 0), cv::Vec3b(10, 20, 30));
  EXPECT_EQ(pixel(rgb, 0, 1), cv::Vec3b(200, 100, 50));
}

TEST(DecodeImage, JpegDecodesAndTruncatedJpegIsRejected) {
  cv::Mat bgr(32, 32, CV_8UC3, cv::Scalar(0, 0, 200));  // red
  const std::vector<uint8_t> jpeg = encode(".jpg", bgr);
  const cv::Vec3b red = pixel(decode_ok(jpeg), 16, 16);
  EXPECT_NEAR(red[0], 200, 3);
  EXPECT_NEAR(red[2], 0, 3);

  std::vector<uint8_t> trailing = jpeg;  // bytes after the end marker are harmless
  trailing.insert(trailing.end(), {0x00, 0x12, 0x34});
  decode_ok(trailing);

  EXPECT_EQ(decode_problem({jpeg.begin(), jpeg.begin() + jpeg.size() / 2}), "truncated JPEG");
}

TEST(DecodeImage, BadBytesSayWhy) {
  EXPECT_EQ(decode_problem({}), "empty file");
  const std::vector<uint8_t> text = {'h', 'e', 'l', 'l', 'o', '\n'};
  EXPECT_EQ(decode_problem(text), "not a decodable image");
  const std::vector<uint8_t> png = encode(".png", cv::Mat(8, 8, CV_8UC3, cv::Scalar(1, 2, 3)));
  EXPECT_EQ(decode_problem({png.begin(), png.begin() + png.size() / 2}), "not a decodable image");
}

TEST(DecodeImage, EveryFormatIsRefusedOverThePixelCap) {
  const cv::Mat bgr(23, 37, CV_8UC3, cv::Scalar(1, 2, 3));
  for (const char* ext : {".jpg", ".png", ".bmp", ".ppm", ".tif", ".webp"}) {
    SCOPED_TRACE(ext);
    const std::vector<uint8_t> bytes = encode(ext, bgr);
    decode_ok(bytes);
    std::string problem;
    EXPECT_FALSE(decode_image(bytes, 37 * 23, &problem).empty()) << problem;  // at the cap
    EXPECT_EQ(decode_problem(bytes, 37 * 23 - 1), "37x23 pixels is over --max_image_pixels=850");
  }
}

// The CRC-32 that ends every PNG chunk (over its type and data).
uint32_t png_crc(const uint8_t* data, size_t n) {
  uint32_t crc = 0xFFFFFFFF;
  for (size_t i = 0; i < n; ++i) {
    crc ^= data[i];
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1) ? (crc >> 1) ^ 0xEDB88320 : crc >> 1;
  }
  return ~crc;
}

void put_big_endian(uint32_t value, uint8_t* out) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<uint8_t>(value >> (24 - 8 * i));
}

// A real 8x8 PNG whose IHDR is rewritten to declare width x height, with its CRC fixed: libpng
// would accept the header and OpenCV allocate the declared pixels before finding the data short.
std::vector<uint8_t> png_declaring(uint32_t width, uint32_t height) {
  std::vector<uint8_t> png = encode(".png", cv::Mat(8, 8, CV_8UC1, cv::Scalar(0)));
  put_big_endian(width, &png[16]);
  put_big_endian(height, &png[20]);
  put_big_endian(png_crc(&png[12], 4 + 13), &png[29]);  // "IHDR" and its 13 bytes
  return png;
}

TEST(DecodeImage, ADecompressionBombIsRefusedFromItsHeader) {
  EXPECT_EQ(png_declaring(8, 8), encode(".png", cv::Mat(8, 8, CV_8UC1, cv::Scalar(0))));
  EXPECT_EQ(decode_problem(png_declaring(30000, 30000)),
            "30000x30000 pixels is over --max_image_pixels=178956970");
  EXPECT_EQ(decode_problem(png_declaring(4294967295u, 4294967295u)),
            "4294967295x4294967295 pixels is over --max_image_pixels=178956970");
}

// The bytes of address space this process has mapped.
rlim_t address_space_in_use() {
  size_t pages = 0;
  std::ifstream("/proc/self/statm") >> pages;
  return static_cast<rlim_t>(pages) * sysconf(_SC_PAGESIZE);
}

// In a child process whose address space ends `headroom` bytes past what it uses: prints the
// problem of decoding `bytes` and exits 0 when decode_image returned (an exception escaping it
// would end the child otherwise).
void decode_with_headroom(const std::vector<uint8_t>& bytes, rlim_t headroom) {
  const rlimit limit{address_space_in_use() + headroom, RLIM_INFINITY};
  setrlimit(RLIMIT_AS, &limit);
  std::string problem;
  const bool decoded = !decode_image(bytes, kMaxPixels, &problem).empty();
  std::cerr << (decoded ? "decoded" : problem);
  std::exit(0);
}

TEST(DecodeImageDeathTest, RunningOutOfMemoryIsAProblemNamingTheSize) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "sanitizers map more address space than the limit leaves";
#endif
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // 4000x4000 BGR: 48 MB decoded, and 48 MB more for the RGB copy.
  const std::vector<uint8_t> png = encode(".png", cv::Mat(4000, 4000, CV_8UC3, cv::Scalar(1)));
  const rlim_t mb = 1 << 20;
  EXPECT_EXIT(decode_with_headroom(png, 16 * mb), ::testing::ExitedWithCode(0),
              "out of memory decoding 4000x4000 pixels");  // OpenCV's allocation fails
  EXPECT_EXIT(decode_with_headroom(png, 72 * mb), ::testing::ExitedWithCode(0),
              "out of memory decoding 4000x4000 pixels");  // the decode fits, the RGB copy not
  EXPECT_EXIT(decode_with_headroom(cmyk_jpeg_declaring(4000, 4000), 16 * mb),
              ::testing::ExitedWithCode(0),
              "out of memory decoding 4000x4000 pixels");  // a CMYK JPEG's RGB pixels do not fit
}

}  // namespace
}  // namespace xtrain
