// train: the driver. Parses flags, builds the model and the data, trains, and prints the lines
// test_train_imagenet.py prints. Every error ends here as one line and a non-zero exit.
#include <spdlog/spdlog.h>

#include <iostream>

#include "apps/train_flags.h"
#include "data/fake_data.h"
#include "data/image_folder_source.h"
#include "lib/base/check.h"
#include "lib/train/log_lines.h"
#include "models/registry.h"

namespace xtrain {
namespace {

constexpr int kTargetMissedExitCode = 21;  // as test_train_imagenet.py
constexpr int kImageNetClasses = 1000;     // --fake_data's default --num_classes

int train(const TrainFlags& flags) {
  const TrainerOptions& options = flags.trainer;
  const int num_cores = 1;
  BatchSourceFactory train_data, test_data;
  int num_classes = flags.num_classes > 0 ? flags.num_classes : kImageNetClasses;
  if (flags.fake_data) {
    train_data = [&](int rank, int num_replicas) {
      return std::make_unique<FakeData>(FakeData::train_batches(options.batch_size, num_cores),
                                        options.batch_size, options.image_size);
    };
    test_data = [&](int rank, int num_replicas) {
      return std::make_unique<FakeData>(FakeData::test_batches(options.batch_size, num_cores),
                                        options.test_set_batch_size, options.image_size);
    };
  } else {
    ImageFolderSources folders =
        open_image_folders(flags.data, options.image_size, options.batch_size,
                           options.test_set_batch_size, options.seed);
    XTRAIN_CHECK(flags.num_classes == 0 || flags.num_classes >= folders.num_classes,
                 "--num_classes={} but {} has {} classes", flags.num_classes, flags.data.datadir,
                 folders.num_classes);
    if (flags.num_classes == 0) num_classes = folders.num_classes;
    train_data = std::move(folders.train);
    test_data = std::move(folders.test);
  }

  std::shared_ptr<const Graph> model = build_model(flags.model, num_classes);
  const Shape image{1, options.image_size, options.image_size, model->input_channels()};
  spdlog::info(
      model_line(flags.model, model->num_parameters(), model->macs(image), options.image_size));
  Trainer trainer(model, options, train_data, test_data);
  const double max_accuracy = trainer.run();
  if (max_accuracy < flags.target_accuracy) {
    spdlog::info(below_target_line(max_accuracy, flags.target_accuracy));
    return kTargetMissedExitCode;
  }
  return 0;
}

}  // namespace
}  // namespace xtrain

int main(int argc, char** argv) {
  spdlog::set_pattern("%v");
  spdlog::flush_on(spdlog::level::info);  // each line reaches a pipe at once, as print(flush=True)
  xtrain::TrainFlags flags;
  int exit_code = 0;
  if (!xtrain::parse_train_flags(argc, argv, &flags, &exit_code)) return exit_code;
  try {
    return xtrain::train(flags);
  } catch (const xtrain::Error& e) {
    std::cerr << "train: error: " << e.what() << "\n";
  } catch (const std::bad_alloc&) {
    std::cerr << "train: error: out of memory (try a smaller --batch_size)\n";
  } catch (const std::exception& e) {
    std::cerr << "train: error: " << e.what() << "\n";
  }
  return 1;
}
