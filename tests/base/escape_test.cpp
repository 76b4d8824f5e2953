// escape_control_characters: a name with control characters prints on one line, and tells the
// name exactly.
#include "lib/base/escape.h"

#include <gtest/gtest.h>

namespace xtrain {
namespace {

TEST(EscapeControlCharacters, ControlCharactersBecomeEscapes) {
  EXPECT_EQ(escape_control_characters("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(escape_control_characters("\x1b[31mred\x7f"), "\\x1b[31mred\\x7f");
  EXPECT_EQ(escape_control_characters(std::string("nul\0byte", 8)), "nul\\x00byte");
}

TEST(EscapeControlCharacters, TheBackslashIsDoubledSoEscapesStayUnambiguous) {
  EXPECT_EQ(escape_control_characters("a\\nb"), "a\\\\nb");  // a backslash, then n
  EXPECT_NE(escape_control_characters("a\\nb"), escape_control_characters("a\nb"));
}

TEST(EscapeControlCharacters, OtherBytesPassUnchanged) {
  EXPECT_EQ(escape_control_characters("dir/cat 1.png"), "dir/cat 1.png");
  EXPECT_EQ(escape_control_characters("caf\xc3\xa9/\xff.png"), "caf\xc3\xa9/\xff.png");
  EXPECT_EQ(escape_control_characters(""), "");
}

}  // namespace
}  // namespace xtrain
