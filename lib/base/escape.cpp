#include "lib/base/escape.h"

#include <fmt/format.h>

namespace xtrain {

std::string escape_control_characters(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\') {
      escaped += "\\\\";
    } else if (c == '\n') {
      escaped += "\\n";
    } else if (c == '\r') {
      escaped += "\\r";
    } else if (c == '\t') {
      escaped += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      escaped += fmt::format("\\x{:02x}", byte);
    } else {
      escaped += c;
    }
  }
  return escaped;
}

}  // namespace xtrain
