// fashion_mnist_folders: writes Debian's dataset-fashion-mnist (the IDX files under
// /usr/share/datasets/fashion-mnist) as an ImageFolder tree of 28x28 grayscale PNGs that
// `train --datadir` reads: OUT/train/<class>/<n>.png from the 60,000 training images and
// OUT/val/<class>/<n>.png from the 10,000 test images, optionally only the first N of each class.
//   fashion_mnist_folders --out=/tmp/fmnist --train_per_class=200 --val_per_class=100
#include <fmt/format.h>
#include <zlib.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <string>
#include <vector>

#include "lib/base/check.h"

namespace xtrain {
namespace {

// The label table of the data set's README, as folder names ('/' and ' ' become '_').
const char* const kClassNames[] = {"T-shirt_top", "Trouser", "Pullover", "Dress", "Coat",
                                   "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle_boot"};
constexpr int kNumClasses = 10;
constexpr uint32_t kImagesMagic = 0x803, kLabelsMagic = 0x801;  // IDX: ubyte, 3 or 1 dimensions

std::vector<uint8_t> read_gzip(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  XTRAIN_CHECK(file != nullptr, "{}: cannot open (is dataset-fashion-mnist installed?)", path);
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  int n;
  while ((n = gzread(file, chunk, sizeof(chunk))) > 0) bytes.insert(bytes.end(), chunk, chunk + n);
  const bool ok = n == 0;
  gzclose(file);
  XTRAIN_CHECK(ok, "{}: not a readable gzip file", path);
  return bytes;
}

uint32_t big_endian_u32(const std::vector<uint8_t>& bytes, size_t offset) {
  return uint32_t{bytes[offset]} << 24 | uint32_t{bytes[offset + 1]} << 16 |
         uint32_t{bytes[offset + 2]} << 8 | uint32_t{bytes[offset + 3]};
}

// One split's images ([count, rows, cols] bytes after a 16-byte header) and labels (after 8).
struct Split {
  std::vector<uint8_t> images, labels;
  int count = 0, rows = 0, cols = 0;
};

Split read_split(const std::string& dir, const std::string& prefix) {
  Split s;
  const std::string images_path = dir + "/" + prefix + "-images-idx3-ubyte.gz";
  const std::string labels_path = dir + "/" + prefix + "-labels-idx1-ubyte.gz";
  s.images = read_gzip(images_path);
  s.labels = read_gzip(labels_path);
  XTRAIN_CHECK(s.images.size() >= 16 && big_endian_u32(s.images, 0) == kImagesMagic,
               "{}: not an IDX image file", images_path);
  XTRAIN_CHECK(s.labels.size() >= 8 && big_endian_u32(s.labels, 0) == kLabelsMagic,
               "{}: not an IDX label file", labels_path);
  s.count = static_cast<int>(big_endian_u32(s.images, 4));
  s.rows = static_cast<int>(big_endian_u32(s.images, 8));
  s.cols = static_cast<int>(big_endian_u32(s.images, 12));
  XTRAIN_CHECK(big_endian_u32(s.labels, 4) == uint32_t(s.count) &&
                   s.images.size() == 16 + size_t(s.count) * s.rows * s.cols &&
                   s.labels.size() == 8 + size_t(s.count),
               "{} and {}: sizes do not match", images_path, labels_path);
  return s;
}

// Writes the first `per_class` images of each class (all when 0) as OUT/<class>/<index>.png.
int write_split(const Split& s, const std::string& out, int per_class) {
  std::vector<int> written(kNumClasses, 0);
  for (const char* name : kClassNames) std::filesystem::create_directories(out + "/" + name);
  int total = 0;
  for (int i = 0; i < s.count; ++i) {
    const int label = s.labels[8 + i];
    XTRAIN_CHECK(label < kNumClasses, "image {}: label {} out of range", i, label);
    if (per_class > 0 && written[label] >= per_class) continue;
    const cv::Mat image(s.rows, s.cols, CV_8UC1,
                        const_cast<uint8_t*>(&s.images[16 + size_t(i) * s.rows * s.cols]));
    const std::string path = fmt::format("{}/{}/{:05d}.png", out, kClassNames[label], i);
    XTRAIN_CHECK(cv::imwrite(path, image), "{}: cannot write", path);
    ++written[label];
    ++total;
  }
  return total;
}

}  // namespace
}  // namespace xtrain

int main(int argc, char** argv) {
  std::string source = "/usr/share/datasets/fashion-mnist";
  std::string out;
  int train_per_class = 0, val_per_class = 0;
  CLI::App app{"Write Fashion-MNIST as ImageFolder PNGs: OUT/train/<class>, OUT/val/<class>",
               "fashion_mnist_folders"};
  app.add_option("--out", out, "Output folder")->required();
  app.add_option("--source", source, "Folder of the IDX .gz files")->capture_default_str();
  app.add_option("--train_per_class", train_per_class, "Training images per class (0: all)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--val_per_class", val_per_class, "Test images per class (0: all)")
      ->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);
  try {
    const int train =
        xtrain::write_split(xtrain::read_split(source, "train"), out + "/train", train_per_class);
    const int val =
        xtrain::write_split(xtrain::read_split(source, "t10k"), out + "/val", val_per_class);
    std::cout << fmt::format("{}: {} training and {} validation images in 10 classes\n", out, train,
                             val);
  } catch (const std::exception& e) {
    std::cerr << "fashion_mnist_folders: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
