// predict against torchvision: tests/golden/predict_resnet18.json holds the probabilities that
// torchvision's ImageNet evaluation (PIL resize of the shorter side to 256, center crop 224,
// normalize) and resnet18 give for noise images and weights set by formula
// (scripts/make_predict_golden.py). Here the same weights go into a checkpoint, the same images
// into PNG files, and the real `predict` binary must print the same probabilities to 1e-4.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "lib/io/checkpoint.h"
#include "models/registry.h"
#include "tests/data/temp_folder.h"
#include "tests/models/formula_weights.h"
#include "tests/models/golden_file.h"

namespace xtrain {
namespace {

using nlohmann::json;

// The bound; PyTorch's own float32 run is ~1e-7 from its float64 reference, so only a
// different pixel, crop or layer moves the probabilities this far.
constexpr double kTolerance = 1e-4;

// make_predict_golden.py's image: byte floor((u(i, key) + 1) * 128) at flat index i of its
// height x width x RGB array (OpenCV stores BGR).
cv::Mat noise_image(int height, int width, int key) {
  cv::Mat image(height, width, CV_8UC3);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < 3; ++c) {
        const int64_t i = (int64_t{y} * width + x) * 3 + c;
        image.at<cv::Vec3b>(y, x)[2 - c] =
            static_cast<uint8_t>((testing::hashed_uniform(i, key) + 1.0) * 128.0);
      }
    }
  }
  return image;
}

// Runs `command` and returns its standard output; *status is its exit status.
std::string run(const std::string& command, int* status) {
  FILE* pipe = popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr) << command;
  std::string out;
  char buffer[4096];
  for (size_t n; pipe && (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  *status = pipe ? pclose(pipe) : -1;
  return out;
}

TEST(PredictGolden, GivesTorchvisionsProbabilities) {
  const json golden = testing::load_golden_file("predict_resnet18.json");
  const std::string model = golden["model"];
  const int classes = golden["num_classes"];
  testing::TempFolder folder;
  for (const json& image : golden["images"]) {
    folder.write_image("images/" + image["file"].get<std::string>(),
                       noise_image(image["height"], image["width"], image["key"]));
  }
  Replica replica(build_model(model, classes), /*kernel_threads=*/1);
  replica.store().initialize(0);  // BatchNorm statistics as a fresh torchvision model
  testing::set_formula_parameters(replica);
  const std::string checkpoint = folder.path() + "/weights.safetensors";
  CheckpointInfo info;
  info.model = model;
  save_model(checkpoint, replica, info);

  int status = 0;
  const std::string out =
      run(std::string(XTRAIN_PREDICT) + " --checkpoint='" + checkpoint + "' --model=" + model +
              " --image_size=" + std::to_string(golden["image_size"].get<int>()) +
              " --top_k=" + std::to_string(classes) + " '" + folder.path() + "/images'",
          &status);
  ASSERT_EQ(status, 0) << out;

  std::map<std::string, std::vector<double>> ours;  // file name -> probability per class
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const json prediction = json::parse(line);
    std::vector<double> probabilities(classes);
    for (int r = 0; r < classes; ++r) {
      probabilities[prediction["top_k"][r].get<int>()] = prediction["probabilities"][r];
    }
    ours[std::filesystem::path(prediction["path"].get<std::string>()).filename()] = probabilities;
  }
  ASSERT_EQ(ours.size(), golden["images"].size()) << out;
  for (const json& image : golden["images"]) {
    const std::string file = image["file"];
    const std::vector<double> theirs = image["probabilities"];
    for (int j = 0; j < classes; ++j) {
      EXPECT_NEAR(ours[file][j], theirs[j], kTolerance) << file << ", class " << j;
    }
  }
}

}  // namespace
}  // namespace xtrain
