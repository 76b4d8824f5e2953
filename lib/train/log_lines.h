// Every line the driver prints while training, formatted in one place, character for character
// as test_train_imagenet.py and torch_xla's test_utils print them, so scripts that grep those
// logs keep working. Times are local wall-clock HH:MM:SS.
#pragma once

#include <cstdint>
#include <string>

namespace xtrain {

std::string clock_time();  // now, "07:27:19"

// "Model resnet50: 25,557,032 parameters, 4.09 GMACs per image at 224x224"
std::string model_line(const std::string& model, int64_t parameters, int64_t macs_per_image,
                       int image_size);
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
// "Epoch 1 test top-5 Accuracy: 100.00%" (not "Accuracy=", so greps for top-1 see one line)
std::string epoch_top5_line(int epoch, double accuracy);
// "Epoch 1 test: 37 of 100 samples had non-finite outputs (counted wrong)"
std::string epoch_nonfinite_line(int epoch, int64_t nonfinite, int64_t samples);
// "Epoch 1 skipped 3 unreadable images"
std::string epoch_skipped_line(int epoch, int64_t count);
// "Max Accuracy: 100.00%"
std::string max_accuracy_line(double accuracy);
// "Accuracy 12.34 is below target 50.00"
std::string below_target_line(double accuracy, double target);

// 25557032 -> "25,557,032"
std::string with_thousands_separators(int64_t n);

}  // namespace xtrain
