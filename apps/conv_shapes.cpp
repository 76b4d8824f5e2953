#include "apps/conv_shapes.h"

#include <fstream>
#include <sstream>

#include "lib/base/check.h"

namespace xtrain {
namespace {

// Far beyond real layers: keeps a shape's element counts from overflowing.
constexpr int kMaxDimension = 1 << 16;

std::string trimmed(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

}  // namespace

std::vector<NamedConvShape> read_conv_shapes(std::istream& in, const std::string& file) {
  static const char* const kFields[] = {"N", "H",      "W",   "C_IN",  "C_OUT",
                                        "K", "STRIDE", "PAD", "GROUPS"};
  std::vector<NamedConvShape> shapes;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = trimmed(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    std::istringstream fields(line);
    int v[9];
    for (int i = 0; i < 9; ++i) {
      const int lo = i == 7 ? 0 : 1;  // only the padding may be 0
      long value = -1;
      XTRAIN_CHECK(fields >> value && value >= lo && value <= kMaxDimension,
                   "{}:{}: expected N H W C_IN C_OUT K STRIDE PAD GROUPS NAME, {} is not a whole "
                   "number from {} to {}",
                   file, number, kFields[i], lo, kMaxDimension);
      v[i] = static_cast<int>(value);
    }
    const int n = v[0], h = v[1], w = v[2], c_in = v[3], c_out = v[4], k = v[5], stride = v[6],
              pad = v[7], groups = v[8];
    std::string name;
    std::getline(fields, name);
    name = trimmed(name);
    XTRAIN_CHECK(!name.empty(), "{}:{}: the shape has no name", file, number);
    XTRAIN_CHECK(c_in % groups == 0 && c_out % groups == 0,
                 "{}:{}: GROUPS {} must divide C_IN {} and C_OUT {}", file, number, groups, c_in,
                 c_out);
    XTRAIN_CHECK(h + 2 * pad >= k && w + 2 * pad >= k,
                 "{}:{}: the {}x{} kernel is larger than the padded {}x{} input", file, number, k,
                 k, h, w);
    shapes.push_back(
        {name, kernels::Conv2dShape{n, h, w, c_in, c_out, k, k, stride, pad, pad, groups}});
  }
  return shapes;
}

std::vector<NamedConvShape> read_conv_shapes_file(const std::string& path) {
  std::ifstream in(path);
  XTRAIN_CHECK(in.is_open(), "cannot read the shapes file {}", path);
  return read_conv_shapes(in, path);
}

}  // namespace xtrain
