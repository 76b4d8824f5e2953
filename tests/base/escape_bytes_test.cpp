// escape_bytes: valid UTF-8 stays readable, everything else becomes \xHH, nothing is lost, and
// the result is one line of valid JSON string content.
#include "lib/base/escape_bytes.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "tests/base/unescape_bytes.h"

namespace xtrain {
namespace {

TEST(EscapeBytes, KeepsUtf8TextAndDoublesBackslashes) {
  EXPECT_EQ(escape_bytes("data/imagenet"), "data/imagenet");
  EXPECT_EQ(escape_bytes("caf\xc3\xa9/\xf0\x9f\x90\x88.png"), "caf\xc3\xa9/\xf0\x9f\x90\x88.png");
  EXPECT_EQ(escape_bytes("a\\xff"), "a\\\\xff");  // a literal backslash cannot pass for an escape
  EXPECT_EQ(escape_bytes(""), "");
}

TEST(EscapeBytes, EscapesBytesThatAreNotUtf8) {
  EXPECT_EQ(escape_bytes("nu\xff_dir"), "nu\\xff_dir");
  EXPECT_EQ(escape_bytes("\xc0\x80"), "\\xc0\\x80");                    // overlong NUL
  EXPECT_EQ(escape_bytes("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a UTF-16 surrogate
  EXPECT_EQ(escape_bytes("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  EXPECT_EQ(escape_bytes("\xe2\x82"), "\\xe2\\x82");                    // cut short
  EXPECT_EQ(escape_bytes("\xe2\x82z"), "\\xe2\\x82z");
}

TEST(EscapeBytes, EscapesControlCharacters) {
  EXPECT_EQ(escape_bytes("a\nb\r\t\x7f"), "a\\x0ab\\x0d\\x09\\x7f");
  EXPECT_EQ(escape_bytes("\xc2\x85"), "\\xc2\\x85");  // U+0085, a C1 "next line"
  EXPECT_EQ(escape_bytes("\xc2\xa0"), "\xc2\xa0");    // U+00A0 is text
}

TEST(EscapeBytes, RandomBytesComeBackExactlyFromOneLineOfJson) {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 5000; ++trial) {
    std::string bytes(rng() % 24, '\0');
    for (char& c : bytes) c = static_cast<char>(rng() % 4 == 0 ? '\\' : rng() % 256);
    const std::string text = escape_bytes(bytes);
    std::string json;
    ASSERT_NO_THROW(json = nlohmann::json(text).dump()) << "trial " << trial;
    EXPECT_EQ(json.find('\n'), std::string::npos);
    for (char c : text) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20) << "trial " << trial;
    std::string back;
    ASSERT_TRUE(testing::unescape_bytes(nlohmann::json::parse(json).get<std::string>(), &back));
    EXPECT_EQ(back, bytes) << "trial " << trial;
  }
}

}  // namespace
}  // namespace xtrain
