#include "lib/train/log_lines.h"

#include <fmt/format.h>

#include <ctime>

namespace xtrain {
namespace {

// test_utils._get_device_spec: the device, then its ordinal.
std::string device(int core) { return fmt::format("xla:{}/{}", core, core); }

}  // namespace

std::string clock_time() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[16];
  std::strftime(text, sizeof(text), "%H:%M:%S", &local);
  return text;
}

std::string with_thousands_separators(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return n < 0 ? "-" + digits : digits;
}

std::string model_line(const std::string& model, int64_t parameters, int64_t macs_per_image,
                       int image_size) {
  return fmt::format("Model {}: {} parameters, {:.2f} GMACs per image at {}x{}", model,
                     with_thousands_separators(parameters), macs_per_image / 1e9, image_size,
                     image_size);
}

std::string epoch_train_begin_line(int epoch, const std::string& time) {
  return fmt::format("Epoch {} train begin {}", epoch, time);
}

std::string training_line(int core, int epoch, int64_t step, double loss, double rate,
                          double global_rate, const std::string& time) {
  return fmt::format(
      "| Training Device={} Epoch={} Step={} Loss={:.5f} Rate={:.2f} "
      "GlobalRate={:.2f} Time={}",
      device(core), epoch, step, loss, rate, global_rate, time);
}

std::string epoch_train_end_line(int epoch, const std::string& time) {
  return fmt::format("Epoch {} train end {}", epoch, time);
}

std::string test_line(int core, int64_t step, int epoch, const std::string& time) {
  return fmt::format("| Test Device={} Step={} Epoch={} Time={}", device(core), step, epoch, time);
}

std::string epoch_test_end_line(int epoch, const std::string& time, double accuracy) {
  return fmt::format("Epoch {} test end {}, Accuracy={:.2f}", epoch, time, accuracy);
}

std::string epoch_top5_line(int epoch, double accuracy) {
  return fmt::format("Epoch {} test top-5 Accuracy: {:.2f}%", epoch, accuracy);
}

std::string epoch_nonfinite_line(int epoch, int64_t nonfinite, int64_t samples) {
  return fmt::format("Epoch {} test: {} of {} samples had non-finite outputs (counted wrong)",
                     epoch, nonfinite, samples);
}

std::string epoch_skipped_line(int epoch, int64_t count) {
  return fmt::format("Epoch {} skipped {} unreadable image{}", epoch, count, count == 1 ? "" : "s");
}

std::string max_accuracy_line(double accuracy) {
  return fmt::format("Max Accuracy: {:.2f}%", accuracy);
}

std::string below_target_line(double accuracy, double target) {
  return fmt::format("Accuracy {:.2f} is below target {:.2f}", accuracy, target);
}

}  // namespace xtrain
