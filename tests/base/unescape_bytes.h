// The inverse of escape_bytes, written from its documented format ("\\" is a backslash, "\xHH"
// a byte), for tests that check nothing is lost. Returns false on text escape_bytes cannot make.
#pragma once

#include <string>

namespace xtrain::testing {

inline bool unescape_bytes(const std::string& text, std::string* bytes) {
  bytes->clear();
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      bytes->push_back(text[i]);
    } else if (i + 1 < text.size() && text[i + 1] == '\\') {
      bytes->push_back('\\');
      i += 1;
    } else if (i + 3 < text.size() && text[i + 1] == 'x') {
      bytes->push_back(static_cast<char>(std::stoi(text.substr(i + 2, 2), nullptr, 16)));
      i += 3;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace xtrain::testing
