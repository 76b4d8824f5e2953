// loader_benchmark: the input pipeline alone, no model: how many images per second one core's
// training loader reads, decodes and augments into batches from --datadir. With --make_jpegs=N it
// first writes N ImageNet-sized (500x375) JPEGs into DIR/train and DIR/val (10 classes). With
// --epochs=N it times N whole epochs instead, a line each (--cache_dataset: the later ones read
// the kept images), and the peak resident memory.
//   loader_benchmark --datadir=/tmp/jpegs --make_jpegs=1000 --num_workers=2
#include <fmt/format.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <vector>

#include "data/image_folder_source.h"

namespace xtrain {
namespace {

constexpr int kClasses = 10, kWidth = 500, kHeight = 375;

// Smooth color ramps plus noise: decodes at about the cost of a photograph, unlike pure noise.
void make_jpegs(const std::string& dir, int count) {
  cv::RNG rng(1);
  for (int i = 0; i < count; ++i) {
    cv::Mat image(kHeight, kWidth, CV_8UC3);
    const int phase = rng.uniform(0, 255);
    for (int y = 0; y < kHeight; ++y) {
      for (int x = 0; x < kWidth; ++x) {
        image.at<cv::Vec3b>(y, x) = cv::Vec3b((x + phase) & 255, (y * 2) & 255, (x + y) & 255);
      }
    }
    cv::Mat noise(kHeight, kWidth, CV_8UC3);
    rng.fill(noise, cv::RNG::UNIFORM, 0, 24);
    image += noise;
    for (const char* split : {"train", "val"}) {
      const std::string folder = fmt::format("{}/{}/class{}", dir, split, i % kClasses);
      std::filesystem::create_directories(folder);
      cv::imwrite(fmt::format("{}/{:06d}.jpg", folder, i), image);
    }
  }
}

// Times `epochs` whole epochs of `loader` through the batch buffers, printing each one's images
// per second.
void time_epochs(xtrain::BatchSource& loader, int epochs, std::vector<float>& images,
                 std::vector<int32_t>& labels) {
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    loader.start_epoch(epoch);
    int64_t read = 0;
    while (const int n = loader.next(images.data(), labels.data())) read += n;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << fmt::format("epoch {}: {} images in {:.2f} s: {:.1f} images/s\n", epoch, read,
                             seconds, read / seconds);
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::cout << fmt::format("peak RSS {:.0f} MB\n", usage.ru_maxrss / 1024.0);
}

}  // namespace
}  // namespace xtrain

int main(int argc, char** argv) {
  xtrain::ImageFolderOptions options;
  int image_size = 224, batch_size = 128, batches = 20, jpegs = 0, epochs = 0;
  CLI::App app{"Images per second of the training input pipeline alone", "loader_benchmark"};
  app.add_option("--datadir", options.datadir, "Data set folder")->required();
  app.add_option("--make_jpegs", jpegs, "First write this many 500x375 JPEGs into --datadir");
  app.add_option("--augment", options.augment, "imagenet or cifar")->capture_default_str();
  app.add_option("--auto_augment", options.train_extras.auto_augment,
                 "ta_wide, ra, augmix or imagenet (train's flag)");
  app.add_option("--random_erase", options.train_extras.random_erase,
                 "Random erasing probability (train's flag)");
  app.add_option("--num_workers", options.loader.num_workers, "Decoding threads")
      ->capture_default_str();
  app.add_option("--image_size", image_size, "Output side")->capture_default_str();
  app.add_option("--batch_size", batch_size, "Images per batch")->capture_default_str();
  app.add_option("--batches", batches, "Batches to time (after one warm-up batch)")
      ->capture_default_str();
  app.add_option("--epochs", epochs, "Time this many whole epochs instead, a line each");
  app.add_flag("--cache_dataset", options.cache_dataset,
               "Keep the decoded images in memory (train's flag)");
  CLI11_PARSE(app, argc, argv);
  try {
    if (jpegs > 0) xtrain::make_jpegs(options.datadir, jpegs);
    const xtrain::ImageFolderSources sources =
        xtrain::open_image_folders(options, image_size, batch_size, batch_size, /*seed=*/1);
    auto loader = sources.train(0, 1);
    std::vector<float> images(size_t(batch_size) * image_size * image_size * 3);
    std::vector<int32_t> labels(batch_size);
    if (epochs > 0) {
      xtrain::time_epochs(*loader, epochs, images, labels);
      return 0;
    }
    const int64_t target = int64_t{batches} * batch_size;
    int64_t timed = 0;
    bool warmed_up = false;  // the first batch pays for starting up and is not timed
    auto start = std::chrono::steady_clock::now();
    for (int epoch = 1; timed < target; ++epoch) {
      loader->start_epoch(epoch);
      while (timed < target) {
        const int n = loader->next(images.data(), labels.data());
        if (n == 0) break;
        if (!warmed_up) {
          warmed_up = true;
          start = std::chrono::steady_clock::now();
        } else {
          timed += n;
        }
      }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << fmt::format("{} images in {:.2f} s: {:.1f} images/s with {} workers\n", timed,
                             seconds, timed / seconds, options.loader.num_workers);
  } catch (const std::exception& e) {
    std::cerr << "loader_benchmark: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
