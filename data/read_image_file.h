// read_image_file: the bytes of an image file (or its first bytes, for its header), read only
// when the path leads (links followed) to a regular file of at most max_bytes. Never blocks: a
// FIFO, device, socket or folder is refused from stat before any open, the open itself does not
// block, and the opened file is checked again (it may have been swapped since); a file that
// grows while read stops at max_bytes.
// Not here: decoding (decode_image.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xtrain {

// Fills *bytes with the file; false with *problem set (e.g. "not a regular file (a FIFO)",
// "70000000 bytes is over --max_image_bytes=67108864") when it cannot or must not be read.
bool read_image_file(const std::string& path, int64_t max_bytes, std::vector<uint8_t>* bytes,
                     std::string* problem);

// The first `head` bytes of the file (all of a shorter one), under the same checks: for its
// header.
bool read_image_head(const std::string& path, int64_t max_bytes, size_t head,
                     std::vector<uint8_t>* bytes, std::string* problem);

}  // namespace xtrain
