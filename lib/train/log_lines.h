// Every line the driver prints while training, formatted in one place, character for character
// as test_train_imagenet.py and torch_xla's test_utils print them, so scripts that grep those
// logs keep working. Times are local wall-clock HH:MM:SS.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "lib/io/top1_milestones.h"
#include "lib/tensor/precision.h"

namespace xtrain {

std::string clock_time();  // now, "07:27:19"

// What the products are computed in: "float32", "bfloat16 multiplies on AVX512_BF16", or
// "bfloat16 multiplies, emulated (no AVX512_BF16 in this build: slower than float32)".
std::string precision_text(Precision precision, bool bfloat16_in_hardware);
// "Model resnet50: 25,557,032 parameters, 4.09 GMACs per image at 224x224, float32" (the
// precision as precision_text says it)
std::string model_line(const std::string& model, int64_t parameters, int64_t macs_per_image,
                       int image_size, const std::string& precision);
// "Memory: 2 cores x 9.8 GB (batch 128, float32) = 19.6 GB of 22.9 GB available" (the total
// adds the process's own); with no budget known, "= 19.6 GB, available memory unknown". Under
// --cache_dataset the process's decoded images are named: "... (batch 128, float32) + 141 MB of
// decoded images = ...".
std::string memory_line(int num_cores, size_t core_bytes, int batch_size, Precision precision,
                        size_t cache_bytes, size_t total_bytes, std::optional<size_t> available);
// "Note: using 1 of 2 cores: 2 cores x batch 128 need 29.4 GB, 22.9 GB is available"
std::string cores_capped_line(int num_cores, int max_cores, int batch_size, size_t max_cores_bytes,
                              size_t available);
// "3 cores x batch 128 need 29.4 GB; 22.9 GB is available: use --batch_size=80 or
// --num_cores=2" (a suggestion of 0 is left out; none: "...: not even batch 1 fits on 3 cores").
// With cache_bytes of --cache_dataset's decoded images in `need`, it names them ("... need 29.4
// GB, --cache_dataset's decoded images 5.0 GB of it; ...") and suggests leaving them out when
// the rest fits.
std::string does_not_fit_message(int num_cores, int batch_size, size_t need, size_t available,
                                 int fitting_batch, int fitting_cores, size_t cache_bytes = 0);
// 10522669875 -> "9.8 GB", 83886080 -> "80 MB": GB and MB are 2^30 and 2^20 bytes, as the G and
// M of XTRAIN_MEMORY_LIMIT.
std::string memory_size(size_t bytes);

// What a run will do, for run_line().
struct RunOutline {
  bool evaluate = false;  // --evaluate: one pass over the test set, no training
  int first_epoch = 1;    // after a resume, the first epoch still to train
  int num_epochs = 0;
  int64_t steps_per_epoch = 0;  // per core, --num_steps applied
  int num_cores = 1;
  int batch_size = 0;
  int64_t test_batches = 0;       // per core per epoch, --num_test_steps applied
  bool all_test_batches = false;  // --num_test_steps=0
  bool test_only_at_end = false;
  int test_set_batch_size = 0;
};
// "Run: 18 epochs x 10 steps x 2 cores x 32 images (global batch 64), test 2 batches per core
// per epoch"; resumed: "Run: epochs 3 to 18 x ..."; --num_test_steps=0: "test all 390 batches
// ..."; --test_only_at_end: "... per core after the last epoch"; --evaluate: "Run: evaluate 390
// batches x 2 cores x 64 images (global batch 128)".
std::string run_line(const RunOutline& run);

// "Epoch 1 train begin 07:27:19"
std::string epoch_train_begin_line(int epoch, const std::string& time);
// "| Training Device=xla:0/0 Epoch=1 Step=0 Loss=6.89059 Rate=2.12 GlobalRate=2.12 Time=07:28:19"
std::string training_line(int core, int epoch, int64_t step, double loss, double rate,
                          double global_rate, const std::string& time);
// "Epoch 1 train end 07:40:02"
std::string epoch_train_end_line(int epoch, const std::string& time);
// "| Test Device=xla:0/0 Step=0 Epoch=1 Time=07:40:05"
std::string test_line(int core, int64_t step, int epoch, const std::string& time);
// "Epoch 1 test end 07:41:10, Accuracy=100.00"
std::string epoch_test_end_line(int epoch, const std::string& time, double accuracy);
// "Epoch 1 test (EMA) end 07:42:15, Accuracy=100.00": the model's average (--model_ema), after
// the model's lines ("Epoch N test end" stays the model's alone).
std::string epoch_test_ema_end_line(int epoch, const std::string& time, double accuracy);
// "Epoch 1 test top-5 Accuracy: 100.00% of 50000 samples" (not "Accuracy=", so greps for top-1
// see one line); the samples scored, unreadable images left out.
std::string epoch_top5_line(int epoch, double accuracy, int64_t samples);
// "Epoch 1 test: 37 of 100 samples had non-finite outputs (counted wrong)"
std::string epoch_nonfinite_line(int epoch, int64_t nonfinite, int64_t samples);
// "Epoch 1 test: the weights or BatchNorm statistics are not finite: all 100 samples counted as
// non-finite (wrong)"
std::string epoch_nonfinite_weights_line(int epoch, int64_t samples);
// "Epoch 1 skipped 3 unreadable images"
std::string epoch_skipped_line(int epoch, int64_t count);
// "Nothing to do: every epoch of --num_epochs=18 is trained and tested (raise it to train on).
// Max Accuracy: 76.10%"
std::string nothing_to_do_line(int num_epochs, double max_accuracy);
// "Max Accuracy: 100.00%"
std::string max_accuracy_line(double accuracy);
// "Time to 92.00% top-1: 1234.5 s (epoch 5)", or "Time to 95.00% top-1: not reached"
std::string time_to_top1_line(double target, const std::optional<Top1Milestone>& reached);
// "Accuracy 12.34 is below target 50.00"
std::string below_target_line(double accuracy, double target);

// 25557032 -> "25,557,032"
std::string with_thousands_separators(int64_t n);

}  // namespace xtrain
