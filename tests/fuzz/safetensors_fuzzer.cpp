// libFuzzer entry point: any bytes must either load or be rejected with xtrain::Error. Another
// exception escapes and libFuzzer reports it; AddressSanitizer and UBSan catch the rest.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "lib/base/check.h"
#include "lib/io/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    xtrain::read_safetensors(in, "input");
  } catch (const xtrain::Error&) {
  }
  return 0;
}
