#include "data/image_header.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>

namespace xtrain {
namespace {

using namespace std::string_view_literals;

// Sides are clamped here: far above any pixel limit, and width * height cannot overflow.
constexpr uint64_t kHugeSide = uint64_t{1} << 40;

int64_t side(uint64_t value) { return static_cast<int64_t>(std::min(value, kHugeSide)); }

bool starts_with(const std::vector<uint8_t>& bytes, std::string_view signature,
                 uint64_t offset = 0) {
  return offset <= bytes.size() && signature.size() <= bytes.size() - offset &&
         std::equal(signature.begin(), signature.end(), bytes.begin() + offset,
                    [](char a, uint8_t b) { return static_cast<uint8_t>(a) == b; });
}

// The header's bytes read as unsigned integers at given offsets. Reading past the end gives 0
// and marks the header truncated, so a format reads its fields plainly and is checked once.
class HeaderBytes {
 public:
  explicit HeaderBytes(const std::vector<uint8_t>& bytes) : bytes_(bytes) {}

  bool truncated() const { return truncated_; }
  bool has(std::string_view signature, uint64_t offset) const {
    return starts_with(bytes_, signature, offset);
  }
  // The n-byte (n <= 8) unsigned integer at `offset`.
  uint64_t big_endian(uint64_t offset, int n) { return read(offset, n, /*big_endian=*/true); }
  uint64_t little_endian(uint64_t offset, int n) { return read(offset, n, /*big_endian=*/false); }
  uint64_t read(uint64_t offset, int n, bool big_endian) {
    if (offset > bytes_.size() || static_cast<uint64_t>(n) > bytes_.size() - offset) {
      truncated_ = true;
      return 0;
    }
    uint64_t value = 0;
    for (int i = 0; i < n; ++i) value = value << 8 | bytes_[offset + (big_endian ? i : n - 1 - i)];
    return value;
  }
  uint8_t byte(uint64_t offset) { return static_cast<uint8_t>(big_endian(offset, 1)); }

 private:
  const std::vector<uint8_t>& bytes_;
  bool truncated_ = false;
};

// Each reader below fills *size and returns false when the header is invalid; a header cut
// short shows as bytes.truncated().

// Signature (8), then the IHDR chunk: length (4), "IHDR", width (4), height (4), big-endian.
bool read_png_size(HeaderBytes& bytes, ImageSize* size) {
  size->width = side(bytes.big_endian(16, 4));
  size->height = side(bytes.big_endian(20, 4));
  return bytes.has("IHDR"sv, 12);
}

// SOFn: C0-CF but DHT (C4), JPG (C8) and DAC (CC).
bool is_start_of_frame(uint8_t marker) {
  return marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
}

// Segments from after SOI up to the first frame header, found as libjpeg finds it: any bytes up
// to an FF, fill FFs, then the marker; a segment's length counts its own 2 bytes.
bool read_jpeg_size(HeaderBytes& bytes, ImageSize* size) {
  uint64_t at = 2;
  while (!bytes.truncated()) {
    while (bytes.byte(at) != 0xFF && !bytes.truncated()) ++at;
    while (bytes.byte(at) == 0xFF) ++at;
    const uint8_t marker = bytes.byte(at++);
    if (bytes.truncated()) return false;
    if (is_start_of_frame(marker)) {  // length (2), precision (1), lines (2), samples per line (2)
      size->height = side(bytes.big_endian(at + 3, 2));
      size->width = side(bytes.big_endian(at + 5, 2));
      return true;
    }
    if (marker == 0xD8 || marker == 0xD9 || marker == 0xDA) return false;  // SOI, EOI, SOS first
    const bool has_length = marker != 0x00 && marker != 0x01 && (marker < 0xD0 || marker > 0xD7);
    if (!has_length) continue;  // a stuffed FF, TEM or RSTn
    const uint64_t length = bytes.big_endian(at, 2);
    if (length < 2) return false;
    at += length;
  }
  return false;
}

// File header (14), then the DIB header, whose size (4) tells its kind: OS/2's 12 bytes hold
// 16-bit sides, the others signed 32-bit ones (a negative height stores the rows top-down).
bool read_bmp_size(HeaderBytes& bytes, ImageSize* size) {
  const uint64_t dib_header_size = bytes.little_endian(14, 4);
  if (dib_header_size == 12) {
    size->width = side(bytes.little_endian(18, 2));
    size->height = side(bytes.little_endian(20, 2));
    return true;
  }
  const auto width = static_cast<int32_t>(bytes.little_endian(18, 4));
  const auto height = static_cast<int32_t>(bytes.little_endian(22, 4));
  size->width = width;
  size->height = height < 0 ? -int64_t{height} : height;
  return dib_header_size >= 16;
}

// A decimal field of a PNM header after whitespace and '#' comments (to the end of the line), as
// OpenCV reads it; false when something else comes first.
bool read_pnm_number(HeaderBytes& bytes, uint64_t* at, int64_t* value) {
  for (uint8_t c = bytes.byte(*at); !std::isdigit(c); c = bytes.byte(++*at)) {
    if (bytes.truncated()) return false;
    if (c == '#') {
      while (c != '\n' && c != '\r' && !bytes.truncated()) c = bytes.byte(++*at);
    } else if (!std::isspace(c)) {
      return false;
    }
  }
  uint64_t number = 0;
  for (uint8_t c = bytes.byte(*at); std::isdigit(c); c = bytes.byte(++*at)) {
    number = std::min(number * 10 + (c - '0'), kHugeSide);
  }
  *value = side(number);
  return true;
}

// "P1".."P6", whitespace, then width, height and, but in bitmaps (P1, P4), the largest sample
// value as decimal fields.
bool read_pnm_size(HeaderBytes& bytes, ImageSize* size) {
  uint64_t at = 2;
  if (!read_pnm_number(bytes, &at, &size->width) || !read_pnm_number(bytes, &at, &size->height)) {
    return false;
  }
  const uint8_t kind = bytes.byte(1);
  return kind == '1' || kind == '4' || read_pnm_number(bytes, &at, &size->pnm_max_value);
}

// "RIFF", size (4), "WEBP", then the first chunk: its FourCC (4), size (4) and data from byte 20.
bool read_webp_size(HeaderBytes& bytes, ImageSize* size) {
  // Lossy: frame tag (3), start code (3), then 14-bit sides (the top 2 bits are a scale).
  if (bytes.has("VP8 "sv, 12)) {
    size->width = side(bytes.little_endian(26, 2) & 0x3FFF);
    size->height = side(bytes.little_endian(28, 2) & 0x3FFF);
    return bytes.has("\x9D\x01\x2A"sv, 23);
  }
  // Lossless: signature 2F, then 14 bits each of width - 1 and height - 1.
  if (bytes.has("VP8L"sv, 12)) {
    const uint64_t bits = bytes.little_endian(21, 4);
    size->width = side((bits & 0x3FFF) + 1);
    size->height = side((bits >> 14 & 0x3FFF) + 1);
    return bytes.byte(20) == 0x2F;
  }
  // Extended: flags (4), then 24 bits each of the canvas's width - 1 and height - 1.
  if (bytes.has("VP8X"sv, 12)) {
    size->width = side(bytes.little_endian(24, 3) + 1);
    size->height = side(bytes.little_endian(27, 3) + 1);
    return true;
  }
  return false;
}

// Byte order ("II" little, "MM" big), version (42 TIFF, 43 BigTIFF), the first IFD's offset;
// the IFD is an entry count and entries of tag (2), type (2), count, value. ImageWidth (256) and
// ImageLength (257) are one SHORT or LONG (or BigTIFF's LONG8); the first of each counts.
bool read_tiff_size(HeaderBytes& bytes, ImageSize* size) {
  const bool big_endian = bytes.has("MM"sv, 0);
  const bool bigtiff = bytes.read(2, 2, big_endian) == 43;
  const int offset_bytes = bigtiff ? 8 : 4;
  const uint64_t ifd = bytes.read(bigtiff ? 8 : 4, offset_bytes, big_endian);
  const uint64_t entries = bytes.read(ifd, bigtiff ? 8 : 2, big_endian);
  const uint64_t first_entry = ifd + (bigtiff ? 8 : 2);
  const int entry_bytes = bigtiff ? 20 : 12;
  for (uint64_t i = 0; i < entries && !bytes.truncated(); ++i) {
    const uint64_t entry = first_entry + i * entry_bytes;
    const uint64_t tag = bytes.read(entry, 2, big_endian);
    int64_t* field = tag == 256 ? &size->width : tag == 257 ? &size->height : nullptr;
    if (field == nullptr || *field != 0) continue;
    const uint64_t type = bytes.read(entry + 2, 2, big_endian);
    const uint64_t count = bytes.read(entry + 4, offset_bytes, big_endian);
    const int value_bytes = type == 3 ? 2 : type == 4 ? 4 : type == 16 && bigtiff ? 8 : 0;
    if (count == 1 && value_bytes > 0) {
      *field = side(bytes.read(entry + 4 + offset_bytes, value_bytes, big_endian));
    }
  }
  return true;
}

struct Format {
  const char* name;
  bool (*matches)(const std::vector<uint8_t>& bytes);
  bool (*read_size)(HeaderBytes& bytes, ImageSize* size);
};

using Bytes = std::vector<uint8_t>;

// The signatures OpenCV's decoders check.
const Format kFormats[] = {
    {"PNG", [](const Bytes& b) { return starts_with(b, "\x89PNG\r\n\x1A\n"sv); }, read_png_size},
    {"JPEG", [](const Bytes& b) { return starts_with(b, "\xFF\xD8"sv); }, read_jpeg_size},
    {"BMP", [](const Bytes& b) { return starts_with(b, "BM"sv); }, read_bmp_size},
    {"PNM",
     [](const Bytes& b) {
       return b.size() >= 3 && b[0] == 'P' && b[1] >= '1' && b[1] <= '6' && std::isspace(b[2]);
     },
     read_pnm_size},
    {"WebP", [](const Bytes& b) { return starts_with(b, "RIFF"sv) && starts_with(b, "WEBP"sv, 8); },
     read_webp_size},
    {"TIFF",
     [](const Bytes& b) {
       return starts_with(b, "II*\0"sv) || starts_with(b, "MM\0*"sv) || starts_with(b, "II+\0"sv) ||
              starts_with(b, "MM\0+"sv);
     },
     read_tiff_size},
};

}  // namespace

bool read_image_size(const std::vector<uint8_t>& bytes, ImageSize* size, std::string* problem) {
  HeaderBytes header(bytes);
  const Format* format = std::find_if(std::begin(kFormats), std::end(kFormats),
                                      [&](const Format& f) { return f.matches(bytes); });
  if (format == std::end(kFormats)) {
    *problem = "not a decodable image";
    return false;
  }
  *size = ImageSize{};
  const bool valid = format->read_size(header, size);
  if (header.truncated()) {
    *problem = fmt::format("truncated {} header", format->name);
  } else if (!valid) {
    *problem = fmt::format("invalid {} header", format->name);
  } else if (size->width < 1 || size->height < 1) {
    *problem =
        fmt::format("the {} header declares {}x{} pixels", format->name, size->width, size->height);
  } else {
    return true;
  }
  return false;
}

}  // namespace xtrain
