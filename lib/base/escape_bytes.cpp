#include "lib/base/escape_bytes.h"

#include <fmt/format.h>

namespace xtrain {
namespace {

// The length of the well-formed UTF-8 sequence starting at s[i] (Unicode's table 3-7: no
// overlong forms, no surrogates, nothing past U+10FFFF), or 0 if there is none.
size_t utf8_length(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const size_t left = s.size() - i;
  const unsigned char b0 = byte(i);
  const auto continues = [&](size_t k, unsigned char lo, unsigned char hi) {
    return k < left && byte(i + k) >= lo && byte(i + k) <= hi;
  };
  if (b0 < 0x80) return 1;
  if (b0 >= 0xC2 && b0 <= 0xDF) return continues(1, 0x80, 0xBF) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    const unsigned char lo = b0 == 0xE0 ? 0xA0 : 0x80;  // no overlong forms
    const unsigned char hi = b0 == 0xED ? 0x9F : 0xBF;  // no surrogates
    return continues(1, lo, hi) && continues(2, 0x80, 0xBF) ? 3 : 0;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    const unsigned char lo = b0 == 0xF0 ? 0x90 : 0x80;  // no overlong forms
    const unsigned char hi = b0 == 0xF4 ? 0x8F : 0xBF;  // nothing past U+10FFFF
    return continues(1, lo, hi) && continues(2, 0x80, 0xBF) && continues(3, 0x80, 0xBF) ? 4 : 0;
  }
  return 0;
}

bool is_control(std::string_view s, size_t i, size_t length) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (length == 1) return b0 < 0x20 || b0 == 0x7F;
  return length == 2 && b0 == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0;  // C1
}

}  // namespace

std::string escape_bytes(std::string_view bytes) {
  std::string text;
  text.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size();) {
    const size_t length = utf8_length(bytes, i);
    if (length == 0 || is_control(bytes, i, length)) {
      const size_t escaped = length == 0 ? 1 : length;
      for (size_t k = i; k < i + escaped; ++k) {
        text += fmt::format("\\x{:02x}", static_cast<unsigned char>(bytes[k]));
      }
      i += escaped;
    } else if (bytes[i] == '\\') {
      text += "\\\\";
      ++i;
    } else {
      text.append(bytes, i, length);
      i += length;
    }
  }
  return text;
}

}  // namespace xtrain
