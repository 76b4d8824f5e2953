// TempFolder: a fresh folder under $TMPDIR for one test, removed with everything in it at the end,
// and helpers to fill it with files and images.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <string>
#include <vector>

namespace xtrain::testing {

class TempFolder {
 public:
  TempFolder() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp ? tmp : "/tmp") + "/xtrain_test_XXXXXX";
    path_ = mkdtemp(pattern.data()) ? pattern : "";
    EXPECT_FALSE(path_.empty()) << "mkdtemp failed";
  }
  ~TempFolder() { std::filesystem::remove_all(path_); }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  const std::string& path() const { return path_; }

  // Writes `bytes` to path()/relative, creating the folders on the way; returns the full path.
  std::string write(const std::string& relative, const std::vector<uint8_t>& bytes) const {
    const std::string full = path_ + "/" + relative;
    std::filesystem::create_directories(std::filesystem::path(full).parent_path());
    std::ofstream(full, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return full;
  }
  // Writes `image` (OpenCV's channel order) encoded as the file name's extension says.
  std::string write_image(const std::string& relative, const cv::Mat& image) const {
    std::vector<uint8_t> bytes;
    EXPECT_TRUE(cv::imencode(std::filesystem::path(relative).extension().string(), image, bytes));
    return write(relative, bytes);
  }

 private:
  std::string path_;
};

// A small gray PNG's bytes.
inline std::vector<uint8_t> png_bytes(int value = 128, int side = 4) {
  std::vector<uint8_t> bytes;
  cv::imencode(".png", cv::Mat(side, side, CV_8UC1, cv::Scalar(value)), bytes);
  return bytes;
}

}  // namespace xtrain::testing
