#include "apps/train_flags.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <thread>

#include "apps/flag_checks.h"
#include "lib/base/escape_bytes.h"
#include "models/registry.h"

namespace xtrain {
namespace {

// More emulated cores, or loader threads and batches in flight per core, than any machine uses:
// each is a thread or a batch buffer, and the loader multiplies them.
constexpr int64_t kMaxCores = 1024;
constexpr int64_t kMaxLoaderDepth = 1024;
constexpr int64_t kMaxInt = std::numeric_limits<int>::max();

// The flags as given, for checkpoints and summary.json: {"argv": [...]}, each argument escaped
// (escape_bytes.h), so that any bytes make valid JSON and can be read back exactly.
std::string flags_record(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.push_back(escape_bytes(argv[i]));
  return nlohmann::json{{"argv", args}}.dump();
}

// A flag that takes no value or one of boolean()'s.
CLI::Option* add_switch(CLI::App& app, const std::string& name, bool& value,
                        const std::string& help) {
  return app.add_flag(name, value, help)->check(boolean());
}

}  // namespace

bool parse_train_flags(int argc, char** argv, TrainFlags* flags, int* exit_code) {
  TrainFlags& f = *flags;
  TrainerOptions& t = f.trainer;
  CLI::App app{"xtrain: train an image classifier the way test_train_imagenet.py does", "train"};
  use_argparse_conventions(app);
  t.num_cores =
      static_cast<int>(std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, kMaxCores));

  // Groups in --help, in docs/FLAGS.md's order: each option joins the group named last.
  app.option_defaults()->group("Model and data");
  app.add_option("--model", f.model, "Architecture")->check(one_of(model_names()));
  bool bf16 = false;
  CLI::Option* bf16_flag =
      add_switch(app, "--bf16", bf16,
                 "Convolutions and Linear layers multiply in bfloat16, everything else stays "
                 "float32 (default: XLA_USE_BF16=1 or true; --bf16=false overrides it)");
  CLI::Option* fake_data =
      add_switch(app, "--fake_data", f.fake_data, "Train and test on all-zero images labelled 0");
  CLI::Option* datadir = app.add_option("--datadir", f.data.datadir,
                                        "Data set folder: DIR/train/<class>/<image>, DIR/val/...")
                             ->check(non_empty_path());
  fake_data->excludes(datadir);
  app.add_option("--num_classes", f.num_classes,
                 "Classifier outputs (default: the classes found; 1000 with --fake_data)")
      ->transform(integer_in(1, kMaxClasses));
  CLI::Option* image_size =
      app.add_option("--image_size", t.image_size,
                     "Training and test image side, in pixels (default: 299 for inception_v3, "
                     "224 for the others)")
          ->transform(integer_in(1, kMaxImageSize));
  app.add_option("--augment", f.data.augment,
                 "Transforms: imagenet (random resized crop) or cifar (pad 4 + random crop)")
      ->check(one_of({"imagenet", "cifar"}));
  app.add_option("--auto_augment", f.data.train_extras.auto_augment,
                 "Training images get this policy after the flip: ta_wide (TrivialAugmentWide; "
                 "default: none)")
      ->check(one_of({"ta_wide"}));
  app.add_option("--random_erase", f.data.train_extras.random_erase,
                 "Probability of RandomErasing a training image, after normalization")
      ->check(float_in(0, 1));

  app.option_defaults()->group("Loading images");
  app.add_option("--num_workers", f.data.loader.num_workers, "Decoding threads per core")
      ->transform(integer_in(1, kMaxLoaderDepth));
  app.add_option("--prefetch_factor", f.data.loader.prefetch_factor,
                 "Batches in flight per decoding thread")
      ->transform(integer_in(1, kMaxLoaderDepth));
  app.add_option("--loader_prefetch_size", f.data.loader.loader_prefetch_size,
                 "Ready batches held ahead of each core")
      ->transform(integer_in(1, kMaxLoaderDepth));
  add_switch(app, "--drop_last", f.data.drop_last,
             "Drop the training tail that does not fill every core's last batch");
  add_switch(app, "--strict", f.data.loader.strict, "Stop at the first unreadable image");
  app.add_option("--max_image_bytes", f.data.image_limits.max_bytes,
                 "Skip (as unreadable) image files larger than this many bytes")
      ->transform(integer_in(1, kMaxInt64));
  app.add_option("--max_image_pixels", f.data.image_limits.max_pixels,
                 "Skip (as unreadable) images whose header declares more pixels than this, "
                 "before decoding them")
      ->transform(integer_in(1, kMaxInt64));

  app.option_defaults()->group("Cores, batches and steps");
  CLI::Option* num_cores =
      app.add_option("--num_cores", t.num_cores,
                     "Emulated TPU cores (threads), each with its own replica and data shard "
                     "(default: the hardware threads, as many as fit in memory)")
          ->transform(integer_in(1, kMaxCores));
  app.add_option("--batch_size", t.batch_size, "Training images per step, per core")
      ->transform(integer_in(1, kMaxBatchSize));
  app.add_option("--test_set_batch_size", t.test_set_batch_size, "Test images per batch, per core")
      ->transform(integer_in(1, kMaxBatchSize));
  app.add_option("--num_epochs", t.num_epochs, "Epochs to train")
      ->transform(integer_in(0, kMaxEpochs));
  app.add_option("--num_steps", t.num_steps, "Training steps per epoch (0: the whole epoch)")
      ->transform(integer_in(0, kMaxInt64));
  app.add_option("--num_test_steps", t.num_test_steps, "Test batches per epoch, per core (0: all)")
      ->transform(integer_in(0, kMaxInt64));
  add_switch(app, "--test_only_at_end", t.test_only_at_end, "Evaluate after the last epoch only");
  app.add_option("--seed", t.seed, "Seed of the weight initialization and the data order")
      ->transform(integer_in(0, kMaxInt64));
  app.add_option("--bucket_cap_mb", t.bucket_cap_mb,
                 "In a job of several processes, sum the gradients across processes in buckets "
                 "of about this many MiB while backward runs (0: once, after backward)")
      ->check(float_in(0, 1 << 20));

  app.option_defaults()->group("Optimizer");
  CLI::Option* lr = app.add_option("--lr", t.lr_schedule.lr, "Learning rate (resnet50: 0.5)")
                        ->check(float_at_least(0));
  app.add_option("--momentum", t.sgd.momentum, "SGD momentum")->check(float_at_least(0));
  app.add_option("--weight_decay", t.sgd.weight_decay, "SGD weight decay")
      ->check(float_at_least(0));
  add_switch(app, "--nesterov", t.sgd.nesterov, "Nesterov momentum");
  app.add_option("--label_smoothing", t.label_smoothing, "Cross-entropy label smoothing")
      ->check(float_in(0, 1));
  CLI::Option* scheduler =
      app.add_option("--lr_scheduler_type", t.lr_schedule.type,
                     "LR schedule (resnet50: WarmupAndExponentialDecayScheduler; others: none)")
          ->check(one_of({"WarmupAndExponentialDecayScheduler", "none"}));
  app.add_option("--lr_scheduler_divisor", t.lr_schedule.divisor, "LR divisor per decay")
      ->check(float_above(0));
  app.add_option("--lr_scheduler_divide_every_n_epochs", t.lr_schedule.divide_every_n_epochs,
                 "Epochs between LR decays")
      ->transform(integer_in(1, kMaxInt));
  app.add_option("--num_warmup_epochs", t.lr_schedule.num_warmup_epochs, "Epochs of LR warmup")
      ->check(float_in(0, kMaxEpochs));

  app.option_defaults()->group("Logs, checkpoints and weights");
  app.add_option("--log_steps", t.log_steps, "Steps between training log lines")
      ->transform(integer_in(1, kMaxInt));
  add_switch(app, "--metrics_debug", t.metrics_debug, "Print a metrics report after every epoch");
  app.add_option("--target_accuracy", f.target_accuracy,
                 "Exit with code 21 if the best top-1 accuracy (percent) stays below this")
      ->check(float_in(0, 100));
  app.add_option("--logdir", t.logdir,
                 "Write metrics.jsonl, TensorBoard events, summary.json and checkpoints (the last "
                 "--keep_checkpoints epochs, checkpoint-last, model_best) here")
      ->check(non_empty_path());
  CLI::Option* keep_checkpoints =
      app.add_option("--keep_checkpoints", t.keep_checkpoints, "Epoch checkpoints kept in --logdir")
          ->transform(integer_in(1, kMaxInt));
  CLI::Option* checkpoint_steps =
      app.add_option("--checkpoint_steps", t.checkpoint_steps,
                     "Also save checkpoint-last every this many steps (0: after each epoch only)")
          ->transform(integer_in(0, kMaxInt64));
  CLI::Option* resume =
      app.add_option("--resume", f.resume,
                     "Continue from a checkpoint (PATH, or auto: --logdir's latest)")
          ->check(non_empty_path());
  CLI::Option* pretrained =
      app.add_option("--pretrained", f.pretrained,
                     "Start from these weights (a torchvision-named safetensors file)")
          ->check(non_empty_path());
  resume->excludes(pretrained);
  add_switch(app, "--evaluate", f.evaluate,
             "Only evaluate the test set (with --pretrained/--resume)");
  app.add_option("--profile", t.profile,
                 "Write per-layer training times as a Chrome trace JSON to this file and log the "
                 "10 slowest layers (use a small --num_steps)")
      ->check(non_empty_path());

  if (!parse_flags(app, argc, argv, exit_code)) return false;
  const auto fail = [&](const std::string& message) {
    report_flag_error(app, message, exit_code);
    return false;
  };
  if (!f.fake_data && f.data.datadir.empty()) {
    return fail(
        "no data: pass --datadir=DIR (DIR/train/<class>/<image>, DIR/val/<class>/<image>) or "
        "--fake_data");
  }
  if (f.evaluate && f.resume.empty() && f.pretrained.empty()) {
    return fail("--evaluate needs weights: pass --pretrained=FILE or --resume");
  }
  if (t.logdir.empty()) {
    if (f.resume == "auto") return fail("--resume=auto needs --logdir");
    // Without a logdir there are no checkpoints: these would be ignored without a word.
    if (checkpoint_steps->count() > 0) return fail("--checkpoint_steps needs --logdir");
    if (keep_checkpoints->count() > 0) return fail("--keep_checkpoints needs --logdir");
  }
  // XLA_USE_BF16 as torch_xla reads it, with --bf16's values: 1 or true turns bfloat16 on, 0 or
  // false leaves it off. An explicit --bf16 wins, as a flag does over the environment.
  const char* use_bf16 = std::getenv("XLA_USE_BF16");
  if (use_bf16 != nullptr && *use_bf16 != '\0') {
    std::string value = use_bf16;
    const std::string problem = boolean()(value);
    if (!problem.empty()) return fail("XLA_USE_BF16: " + problem);
    if (bf16_flag->count() == 0) bf16 = value == "1" || value == "true";
  }
  t.precision = bf16 ? Precision::kBFloat16 : Precision::kFloat32;
  f.num_cores_given = num_cores->count() > 0;
  t.model = f.model;
  t.flags = flags_record(argc, argv);

  // The XLA script's model-specific defaults, for flags the user did not set.
  if (image_size->count() == 0) t.image_size = default_image_size(f.model);
  const bool is_resnet50 = f.model == "resnet50";
  t.lr_schedule.lr = lr->count() > 0 ? t.lr_schedule.lr : (is_resnet50 ? 0.5f : 0.1f);
  if (scheduler->count() == 0) {
    t.lr_schedule.type = is_resnet50 ? "WarmupAndExponentialDecayScheduler" : "none";
  }
  return true;
}

}  // namespace xtrain
