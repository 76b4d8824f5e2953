#include "apps/train_flags.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "models/registry.h"

namespace xtrain {
namespace {

// CLI11's PositiveNumber prints the whole range of a double; this says what is allowed in words:
// "--batch_size: expected a number > 0, got '0'".
CLI::Validator number_above(double bound, bool inclusive) {
  const std::string allowed = fmt::format("a number {} {}", inclusive ? ">=" : ">", bound);
  return CLI::Validator(
      [=](std::string& value) -> std::string {
        double number = 0.0;
        const bool ok = CLI::detail::lexical_cast(value, number) &&
                        (inclusive ? number >= bound : number > bound);
        return ok ? std::string() : fmt::format("expected {}, got '{}'", allowed, value);
      },
      allowed);
}

const CLI::Validator kPositive = number_above(0, /*inclusive=*/false);
const CLI::Validator kNonNegative = number_above(0, /*inclusive=*/true);

}  // namespace

bool parse_train_flags(int argc, char** argv, TrainFlags* flags, int* exit_code) {
  TrainFlags& f = *flags;
  TrainerOptions& t = f.trainer;
  CLI::App app{"xtrain: train an image classifier the way test_train_imagenet.py does", "train"};
  app.option_defaults()->always_capture_default();
  t.num_cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  app.add_option("--model", f.model, "Architecture")->check(CLI::IsMember(model_names()));
  CLI::Option* fake_data =
      app.add_flag("--fake_data", f.fake_data, "Train and test on all-zero images labelled 0");
  CLI::Option* datadir = app.add_option("--datadir", f.data.datadir,
                                        "Data set folder: DIR/train/<class>/<image>, DIR/val/...");
  fake_data->excludes(datadir);
  app.add_option("--augment", f.data.augment,
                 "Transforms: imagenet (random resized crop) or cifar (pad 4 + random crop)")
      ->check(CLI::IsMember({"imagenet", "cifar"}));
  app.add_option("--num_workers", f.data.loader.num_workers, "Decoding threads per core")
      ->check(kPositive);
  app.add_option("--prefetch_factor", f.data.loader.prefetch_factor,
                 "Batches in flight per decoding thread")
      ->check(kPositive);
  app.add_option("--loader_prefetch_size", f.data.loader.loader_prefetch_size,
                 "Ready batches held ahead of each core")
      ->check(kPositive);
  app.add_flag("--drop_last", f.data.drop_last,
               "Drop the training tail that does not fill every core's last batch");
  app.add_flag("--strict", f.data.loader.strict, "Stop at the first unreadable image");
  app.add_option("--num_classes", f.num_classes,
                 "Classifier outputs (default: the classes found; 1000 with --fake_data)")
      ->check(kPositive);
  CLI::Option* num_cores =
      app.add_option("--num_cores", t.num_cores,
                     "Emulated TPU cores (threads), each with its own replica and data shard "
                     "(default: the hardware threads, as many as fit in memory)")
          ->check(kPositive);
  app.add_flag("--metrics_debug", t.metrics_debug, "Print a metrics report after every epoch");
  app.add_option("--image_size", t.image_size, "Training and test image side, in pixels")
      ->check(kPositive);
  app.add_option("--batch_size", t.batch_size, "Training images per step, per core")
      ->check(kPositive);
  app.add_option("--test_set_batch_size", t.test_set_batch_size, "Test images per batch, per core")
      ->check(kPositive);
  app.add_option("--num_epochs", t.num_epochs, "Epochs to train")->check(kNonNegative);
  app.add_option("--num_steps", t.num_steps, "Training steps per epoch (0: the whole epoch)")
      ->check(kNonNegative);
  app.add_option("--num_test_steps", t.num_test_steps, "Test batches per epoch, per core (0: all)")
      ->check(kNonNegative);
  app.add_flag("--test_only_at_end", t.test_only_at_end, "Evaluate after the last epoch only");
  app.add_option("--log_steps", t.log_steps, "Steps between training log lines")->check(kPositive);
  CLI::Option* lr = app.add_option("--lr", t.lr_schedule.lr, "Learning rate (resnet50: 0.5)")
                        ->check(kNonNegative);
  app.add_option("--momentum", t.sgd.momentum, "SGD momentum")->check(kNonNegative);
  app.add_option("--weight_decay", t.sgd.weight_decay, "SGD weight decay")->check(kNonNegative);
  app.add_flag("--nesterov", t.sgd.nesterov, "Nesterov momentum");
  app.add_option("--label_smoothing", t.label_smoothing, "Cross-entropy label smoothing")
      ->check(CLI::Range(0.0f, 1.0f));
  CLI::Option* scheduler =
      app.add_option("--lr_scheduler_type", t.lr_schedule.type,
                     "LR schedule (resnet50: WarmupAndExponentialDecayScheduler; others: none)")
          ->check(CLI::IsMember({"WarmupAndExponentialDecayScheduler", "none"}));
  app.add_option("--lr_scheduler_divisor", t.lr_schedule.divisor, "LR divisor per decay")
      ->check(kPositive);
  app.add_option("--lr_scheduler_divide_every_n_epochs", t.lr_schedule.divide_every_n_epochs,
                 "Epochs between LR decays")
      ->check(kPositive);
  app.add_option("--num_warmup_epochs", t.lr_schedule.num_warmup_epochs, "Epochs of LR warmup")
      ->check(kNonNegative);
  app.add_option("--target_accuracy", f.target_accuracy,
                 "Exit with code 21 if the best top-1 accuracy stays below this");
  app.add_option("--seed", t.seed, "Seed of the weight initialization and the data order");
  app.add_option("--profile", t.profile,
                 "Write per-layer training times as a Chrome trace JSON to this file and log the "
                 "10 slowest layers (use a small --num_steps)");
  app.add_option("--logdir", t.logdir,
                 "Write metrics.jsonl, summary.json and checkpoints (the last --keep_checkpoints "
                 "epochs, checkpoint-last, model_best) here");
  app.add_option("--keep_checkpoints", t.keep_checkpoints, "Epoch checkpoints kept in --logdir")
      ->check(kPositive);
  app.add_option("--checkpoint_steps", t.checkpoint_steps,
                 "Also save checkpoint-last every this many steps (0: after each epoch only)")
      ->check(kNonNegative);
  CLI::Option* resume = app.add_option(
      "--resume", f.resume, "Continue from a checkpoint (PATH, or auto: --logdir's latest)");
  CLI::Option* pretrained =
      app.add_option("--pretrained", f.pretrained,
                     "Start from these weights (a torchvision-named safetensors file)");
  resume->excludes(pretrained);
  app.add_flag("--evaluate", f.evaluate, "Only evaluate the test set (with --pretrained/--resume)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    *exit_code = app.exit(e);
    return false;
  } catch (const CLI::ParseError& e) {
    std::cerr << "train: error: " << e.what() << "\n";
    *exit_code = 2;
    return false;
  }
  if (!f.fake_data && f.data.datadir.empty()) {
    std::cerr << "train: error: no data: pass --datadir=DIR (DIR/train/<class>/<image>, "
                 "DIR/val/<class>/<image>) or --fake_data\n";
    *exit_code = 2;
    return false;
  }

  if (f.evaluate && f.resume.empty() && f.pretrained.empty()) {
    std::cerr << "train: error: --evaluate needs weights: pass --pretrained=FILE or --resume\n";
    *exit_code = 2;
    return false;
  }
  if (f.resume == "auto" && t.logdir.empty()) {
    std::cerr << "train: error: --resume=auto needs --logdir\n";
    *exit_code = 2;
    return false;
  }
  f.num_cores_given = num_cores->count() > 0;
  // The flags as given, recorded in checkpoints and summary.json.
  t.model = f.model;
  t.flags = nlohmann::json{{"argv", std::vector<std::string>(argv + 1, argv + argc)}}.dump();

  // The XLA script's model-specific defaults, for flags the user did not set.
  const bool is_resnet50 = f.model == "resnet50";
  t.lr_schedule.lr = lr->count() > 0 ? t.lr_schedule.lr : (is_resnet50 ? 0.5f : 0.1f);
  if (scheduler->count() == 0) {
    t.lr_schedule.type = is_resnet50 ? "WarmupAndExponentialDecayScheduler" : "none";
  }
  return true;
}

}  // namespace xtrain
