// escape_control_characters: text made safe to print inside a one-line message. File names may
// hold any byte but '/' and NUL: a newline in one would split a warning in two, an ESC would
// drive the terminal. Control characters become C escapes (\n, \t, \r, \x1b) and the backslash
// is doubled, so the printed text still tells the name exactly; other bytes pass unchanged.
#pragma once

#include <string>
#include <string_view>

namespace xtrain {

std::string escape_control_characters(std::string_view text);

}  // namespace xtrain
