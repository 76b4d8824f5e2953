// escape_bytes: any byte string as text that prints on one line and is valid JSON string
// content, with every byte recoverable. Paths and flags are bytes on Linux (not always UTF-8,
// sometimes with a newline); metadata, summary.json and one-line errors need text.
// Not here: reading escaped text back (nothing in xtrain needs to; the format is below).
#pragma once

#include <string>
#include <string_view>

namespace xtrain {

// Valid UTF-8 passes through unchanged, except:
//   a backslash               -> "\\" (two backslashes)
//   a control character       -> "\xHH" per byte (C0, DEL and C1, e.g. a newline is "\x0a")
//   a byte that is not UTF-8  -> "\xHH" (lower-case hex), e.g. 0xFF is "\xff"
// So "\\" and "\xHH" are the only escapes, and unescaping them gives back the exact bytes.
std::string escape_bytes(std::string_view bytes);

}  // namespace xtrain
