#include "lib/train/log_lines.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

namespace xtrain {
namespace {

// test_utils._get_device_spec: the device, then its ordinal.
std::string device(int core) { return fmt::format("xla:{}/{}", core, core); }

// "1 core", "2 cores"
std::string count_of(int64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// "18 epochs"; after a resume "epochs 3 to 18" or "epoch 18"
std::string epochs_text(int first_epoch, int num_epochs) {
  const int remaining = std::max(0, num_epochs - first_epoch + 1);
  if (first_epoch == 1 || remaining == 0) return count_of(remaining, "epoch", "epochs");
  if (remaining == 1) return fmt::format("epoch {}", first_epoch);
  return fmt::format("epochs {} to {}", first_epoch, num_epochs);
}

// "3 cores x batch 128 need 29.4 GB"
std::string cores_need(int num_cores, int batch_size, size_t bytes) {
  return fmt::format("{} x batch {} need {}", count_of(num_cores, "core", "cores"), batch_size,
                     memory_size(bytes));
}

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

std::string precision_text(Precision precision, bool bfloat16_in_hardware) {
  if (precision == Precision::kFloat32) return name(precision);
  if (bfloat16_in_hardware) return "bfloat16 multiplies on AVX512_BF16";
  return "bfloat16 multiplies, emulated (no AVX512_BF16 in this build: slower than float32)";
}

std::string model_line(const std::string& model, int64_t parameters, int64_t macs_per_image,
                       int image_size, const std::string& precision) {
  return fmt::format("Model {}: {} parameters, {:.2f} GMACs per image at {}x{}, {}", model,
                     with_thousands_separators(parameters), macs_per_image / 1e9, image_size,
                     image_size, precision);
}

std::string memory_size(size_t bytes) {
  constexpr double kMB = 1 << 20, kGB = 1 << 30;
  if (bytes < kGB) return fmt::format("{:.0f} MB", bytes / kMB);
  return fmt::format("{:.1f} GB", bytes / kGB);
}

std::string memory_line(int num_cores, size_t core_bytes, int batch_size, Precision precision,
                        size_t cache_bytes, size_t total_bytes, std::optional<size_t> available) {
  const std::string cache =
      cache_bytes > 0 ? fmt::format(" + {} of decoded images", memory_size(cache_bytes)) : "";
  return fmt::format("Memory: {} x {} (batch {}, {}){} = {}{}",
                     count_of(num_cores, "core", "cores"), memory_size(core_bytes), batch_size,
                     name(precision), cache, memory_size(total_bytes),
                     available ? fmt::format(" of {} available", memory_size(*available))
                               : ", available memory unknown");
}

std::string cores_capped_line(int num_cores, int max_cores, int batch_size, size_t max_cores_bytes,
                              size_t available) {
  return fmt::format("Note: using {} of {} cores: {}, {} is available", num_cores, max_cores,
                     cores_need(max_cores, batch_size, max_cores_bytes), memory_size(available));
}

std::string does_not_fit_message(int num_cores, int batch_size, size_t need, size_t available,
                                 int fitting_batch, int fitting_cores, size_t cache_bytes) {
  std::string advice;
  if (fitting_batch > 0) advice = fmt::format("--batch_size={}", fitting_batch);
  if (fitting_cores > 0) {
    advice += fmt::format("{}--num_cores={}", advice.empty() ? "" : " or ", fitting_cores);
  }
  if (!advice.empty()) advice = "use " + advice;
  std::string cache;
  if (cache_bytes > 0) {
    cache = fmt::format(", --cache_dataset's decoded images {} of it", memory_size(cache_bytes));
    if (need - cache_bytes <= available) {
      advice += fmt::format("{}leave out --cache_dataset", advice.empty() ? "" : " or ");
    }
  }
  if (advice.empty()) {
    advice = fmt::format("not even batch 1 fits on {}", count_of(num_cores, "core", "cores"));
  }
  return fmt::format("{}{}; {} is available: {}", cores_need(num_cores, batch_size, need), cache,
                     memory_size(available), advice);
}

std::string run_line(const RunOutline& run) {
  const std::string per_core = fmt::format(
      "{} x {} images (global batch {})", count_of(run.num_cores, "core", "cores"),
      run.evaluate ? run.test_set_batch_size : run.batch_size,
      int64_t{run.num_cores} * (run.evaluate ? run.test_set_batch_size : run.batch_size));
  const std::string test_batches = fmt::format("{}{}", run.all_test_batches ? "all " : "",
                                               count_of(run.test_batches, "batch", "batches"));
  if (run.evaluate) return fmt::format("Run: evaluate {} x {}", test_batches, per_core);
  return fmt::format("Run: {} x {} x {}, test {} per core {}",
                     epochs_text(run.first_epoch, run.num_epochs),
                     count_of(run.steps_per_epoch, "step", "steps"), per_core, test_batches,
                     run.test_only_at_end ? "after the last epoch" : "per epoch");
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

std::string epoch_test_ema_end_line(int epoch, const std::string& time, double accuracy) {
  return fmt::format("Epoch {} test (EMA) end {}, Accuracy={:.2f}", epoch, time, accuracy);
}

std::string epoch_top5_line(int epoch, double accuracy, int64_t samples) {
  return fmt::format("Epoch {} test top-5 Accuracy: {:.2f}% of {} samples", epoch, accuracy,
                     samples);
}

std::string epoch_nonfinite_line(int epoch, int64_t nonfinite, int64_t samples) {
  return fmt::format("Epoch {} test: {} of {} samples had non-finite outputs (counted wrong)",
                     epoch, nonfinite, samples);
}

std::string epoch_nonfinite_weights_line(int epoch, int64_t samples) {
  return fmt::format(
      "Epoch {} test: the weights or BatchNorm statistics are not finite: all {} samples counted "
      "as non-finite (wrong)",
      epoch, samples);
}

std::string epoch_skipped_line(int epoch, int64_t count) {
  return fmt::format("Epoch {} skipped {} unreadable image{}", epoch, count, count == 1 ? "" : "s");
}

std::string nothing_to_do_line(int num_epochs, double max_accuracy) {
  return fmt::format(
      "Nothing to do: every epoch of --num_epochs={} is trained and tested (raise it to train "
      "on). {}",
      num_epochs, max_accuracy_line(max_accuracy));
}

std::string max_accuracy_line(double accuracy) {
  return fmt::format("Max Accuracy: {:.2f}%", accuracy);
}

std::string time_to_top1_line(double target, const std::optional<Top1Milestone>& reached) {
  if (!reached) return fmt::format("Time to {:.2f}% top-1: not reached", target);
  return fmt::format("Time to {:.2f}% top-1: {:.1f} s (epoch {})", target, reached->run_seconds,
                     reached->epoch);
}

std::string below_target_line(double accuracy, double target) {
  return fmt::format("Accuracy {:.2f} is below target {:.2f}", accuracy, target);
}

}  // namespace xtrain
