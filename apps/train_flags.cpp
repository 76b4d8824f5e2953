#include "apps/train_flags.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "apps/flag_checks.h"
#include "apps/test_resize_flags.h"
#include "apps/torchvision_flags.h"
#include "lib/base/check.h"
#include "lib/base/escape_bytes.h"
#include "lib/optim/torchvision_lr_schedule.h"
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

// The LR schedule's options, to see which flags were given.
struct ScheduleFlags {
  CLI::Option *xla_type, *xla_divisor, *xla_divide_every, *xla_warmup_epochs;
  CLI::Option *tv_scheduler, *tv_warmup_epochs, *tv_warmup_method, *tv_warmup_decay, *tv_step_size,
      *tv_gamma, *tv_min, *tv_milestones;
};

// What is wrong with the LR schedule's flags, in one line, or "": torch_xla's schedule
// (--lr_scheduler_type) and torchvision's (--lr_scheduler) are one or the other, no flag given
// may be one the chosen schedule ignores, and the values must be ones torch takes.
std::string lr_schedule_problem(const ScheduleFlags& f, const TorchvisionLROptions& tv,
                                int num_epochs) {
  const auto given = [](const CLI::Option* option) { return option->count() > 0; };
  if (!given(f.tv_scheduler)) {
    for (const CLI::Option* option : {f.tv_warmup_epochs, f.tv_warmup_method, f.tv_warmup_decay,
                                      f.tv_step_size, f.tv_gamma, f.tv_min, f.tv_milestones}) {
      if (given(option)) return option->get_name() + " needs --lr_scheduler (torchvision's)";
    }
    return "";
  }
  if (given(f.xla_type)) {
    return "--lr_scheduler_type and --lr_scheduler: give one of them (torch_xla's schedule or "
           "torchvision's)";
  }
  for (const CLI::Option* option : {f.xla_divisor, f.xla_divide_every, f.xla_warmup_epochs}) {
    if (given(option)) {
      return option->get_name() + " is --lr_scheduler_type's (torch_xla's), not --lr_scheduler's";
    }
  }
  const std::string& name = tv.lr_scheduler;
  const std::vector<std::pair<const CLI::Option*, bool>> used = {
      {f.tv_step_size, name == "steplr"},
      {f.tv_milestones, name == "multisteplr"},
      {f.tv_min, name == "cosineannealinglr"},
      {f.tv_gamma, name != "cosineannealinglr"}};
  for (const auto& [option, uses] : used) {
    if (given(option) && !uses)
      return option->get_name() + " does nothing with --lr_scheduler=" + name;
  }
  for (const CLI::Option* option : {f.tv_warmup_method, f.tv_warmup_decay}) {
    if (given(option) && tv.lr_warmup_epochs == 0) {
      return option->get_name() + " does nothing without --lr_warmup_epochs";
    }
  }
  try {
    check_torchvision_lr_options(tv, num_epochs);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// torch.save's files (torchvision's checkpoints and weights, .pth or .pt) are Python pickles,
// which train cannot read: said before any work, in place of a safetensors reader's complaint.
std::string pytorch_file_problem(const std::string& flag, const std::string& path) {
  const auto ends_with = [&](const std::string& end) {
    return path.size() >= end.size() &&
           path.compare(path.size() - end.size(), end.size(), end) == 0;
  };
  if (!ends_with(".pth") && !ends_with(".pt") && !ends_with(".pth.tar")) return "";
  const std::string what =
      flag + ": " + path + " is a PyTorch pickle (torch.save), which train cannot read: ";
  if (flag == "--resume") {
    return what + "train resumes from its own checkpoints (safetensors, in --logdir)";
  }
  return what + "give it as a safetensors file (safetensors.torch.save_file of its state_dict)";
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
  const CLI::Validator model_check = one_of(model_names());
  app.add_option("--model", f.model, "Architecture")->check(model_check);
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
                     "the crop size of torchvision's weights for the EfficientNets, 224 for the "
                     "others)")
          ->transform(integer_in(1, kMaxImageSize));
  app.add_option("--augment", f.data.augment,
                 "Transforms: imagenet (random resized crop) or cifar (pad 4 + random crop)")
      ->check(one_of({"imagenet", "cifar"}));
  // torchvision's reference script's sizes (references/classification/train.py); --image_size
  // stands for the two crops it does not give.
  int train_crop_size = 0, val_crop_size = 0;
  CLI::Option* train_crop =
      app.add_option("--train_crop_size", train_crop_size,
                     "Training image side: RandomResizedCrop's size (default: --image_size)")
          ->transform(integer_in(1, kMaxImageSize));
  CLI::Option* val_crop =
      app.add_option("--val_crop_size", val_crop_size,
                     "Test image side: CenterCrop's size (default: --image_size)")
          ->transform(integer_in(1, kMaxImageSize));
  const TestResizeFlags test_resize =
      add_test_resize_flags(app, f.data.resampling, "--val_crop_size",
                            "RandomResizedCrop and of the test images' Resize");
  app.add_option("--auto_augment", f.data.train_extras.auto_augment,
                 "Training images get this policy after the flip: ta_wide (TrivialAugmentWide), "
                 "ra (RandAugment), augmix (AugMix), imagenet (AutoAugment's ImageNet policy); "
                 "default: none")
      ->check(one_of({"ta_wide", "ra", "augmix", "imagenet"}));
  CLI::Option* ra_magnitude =
      app.add_option("--ra_magnitude", f.data.train_extras.ra_magnitude,
                     "RandAugment's magnitude bin, 0 to 30 (with --auto_augment=ra)")
          ->transform(integer_in(0, 30));
  CLI::Option* augmix_severity =
      app.add_option("--augmix_severity", f.data.train_extras.augmix_severity,
                     "AugMix's severity, 1 to 10 (with --auto_augment=augmix)")
          ->transform(integer_in(1, 10));
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
  bool ra_sampler = false;
  add_switch(app, "--ra_sampler", ra_sampler,
             "Repeated augmentation (torchvision's RASampler): each training image goes to "
             "--ra_reps cores per epoch, each augmenting it its own way");
  int ra_reps = 3;
  CLI::Option* ra_reps_flag =
      app.add_option("--ra_reps", ra_reps, "Cores each training image goes to with --ra_sampler")
          ->transform(integer_in(1, kMaxCores));
  add_switch(app, "--strict", f.data.loader.strict, "Stop at the first unreadable image");
  add_switch(app, "--cache_dataset", f.data.cache_dataset,
             "Keep every decoded image in memory (sized from the image headers before training, "
             "counted in the Memory line), so each is decoded once; nothing to keep with "
             "--fake_data");
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
  add_switch(app, "--sync_bn", t.sync_bn,
             "Normalize with the statistics of the step's whole batch, every replica's "
             "(PyTorch's SyncBatchNorm; gradients across processes then after backward)");

  app.option_defaults()->group("Optimizer");
  CLI::Option* lr = app.add_option("--lr", t.lr_schedule.lr, "Learning rate (resnet50: 0.5)")
                        ->check(float_at_least(0));
  OptimizerOptions& opt = t.optimizer;
  app.add_option("--opt", opt.name, "Optimizer, as torchvision's --opt")
      ->check(one_of(optimizer_names()));
  app.add_option("--momentum", opt.momentum, "Momentum of sgd, rmsprop and lars")
      ->check(float_at_least(0));
  app.add_option("--weight_decay", opt.weight_decay, "Weight decay")->check(float_at_least(0));
  app.add_option("--norm_weight_decay", opt.norm_weight_decay,
                 "Weight decay of normalization layers' parameters (default: --weight_decay)")
      ->check(float_at_least(0));
  app.add_option("--bias_weight_decay", opt.bias_weight_decay,
                 "Weight decay of biases (default: as the other parameters of their layer)")
      ->check(float_at_least(0));
  app.add_option("--transformer_embedding_decay", opt.transformer_embedding_decay,
                 "Weight decay of transformers' class tokens and position embeddings")
      ->check(float_at_least(0));
  add_switch(app, "--nesterov", opt.nesterov, "Nesterov momentum (sgd, lars)");
  app.add_option("--trust_coefficient", opt.trust_coefficient, "LARS's trust coefficient (eta)")
      ->check(float_above(0));
  app.add_option("--label_smoothing", t.label_smoothing, "Cross-entropy label smoothing")
      ->check(float_in(0, 1));
  app.add_option("--clip_grad_norm", t.clip_grad_norm,
                 "Scale the all-reduced gradient down to this L2 norm where it is larger")
      ->check(float_above(0));
  app.add_option("--mixup_alpha", t.batch_mix.mixup_alpha,
                 "Mix each training batch with itself rolled by one, lambda ~ Beta(alpha, alpha) "
                 "(0: off; with --cutmix_alpha, one of the two per batch)")
      ->check(float_in(0, 1000));
  app.add_option("--cutmix_alpha", t.batch_mix.cutmix_alpha,
                 "Paste a box of the previous image of the batch into each, its area ~ "
                 "Beta(alpha, alpha) (0: off)")
      ->check(float_in(0, 1000));
  add_switch(app, "--model_ema", t.model_ema.enabled,
             "Keep an exponential moving average of the weights and BatchNorm statistics "
             "(torchvision's ExponentialMovingAverage) and evaluate it after each epoch too");
  CLI::Option* model_ema_steps =
      app.add_option("--model_ema_steps", t.model_ema.steps,
                     "--model_ema: training batches between updates of the average")
          ->transform(integer_in(1, kMaxInt));
  CLI::Option* model_ema_decay = app.add_option(
      "--model_ema_decay", t.model_ema.decay,
      "--model_ema: the decay per update, before torchvision's adjustment for the global batch, "
      "--model_ema_steps and --num_epochs (above 0, below 1)");
  ScheduleFlags schedule;
  schedule.xla_type =
      app.add_option("--lr_scheduler_type", t.lr_schedule.type,
                     "LR schedule (resnet50: WarmupAndExponentialDecayScheduler; others: none)")
          ->check(one_of({"WarmupAndExponentialDecayScheduler", "none"}));
  schedule.xla_divisor =
      app.add_option("--lr_scheduler_divisor", t.lr_schedule.divisor, "LR divisor per decay")
          ->check(float_above(0));
  schedule.xla_divide_every =
      app.add_option("--lr_scheduler_divide_every_n_epochs", t.lr_schedule.divide_every_n_epochs,
                     "Epochs between LR decays")
          ->transform(integer_in(1, kMaxInt));
  schedule.xla_warmup_epochs =
      app.add_option("--num_warmup_epochs", t.lr_schedule.num_warmup_epochs, "Epochs of LR warmup")
          ->check(float_in(0, kMaxEpochs));
  // torchvision's reference recipes (references/classification/train.py), under its names.
  TorchvisionLROptions& tv = t.lr_schedule.torchvision;
  schedule.tv_scheduler =
      app.add_option("--lr_scheduler", tv.lr_scheduler,
                     "torchvision's LR schedule, stepped after each epoch, instead of "
                     "--lr_scheduler_type's")
          ->check(one_of({"steplr", "multisteplr", "cosineannealinglr", "exponentiallr"}));
  schedule.tv_warmup_epochs =
      app.add_option("--lr_warmup_epochs", tv.lr_warmup_epochs, "Epochs of --lr_scheduler's warmup")
          ->transform(integer_in(0, kMaxEpochs));
  schedule.tv_warmup_method =
      app.add_option("--lr_warmup_method", tv.lr_warmup_method,
                     "Warmup: constant (--lr_warmup_decay x lr) or linear (from there up to lr)")
          ->check(one_of({"constant", "linear"}));
  schedule.tv_warmup_decay = app.add_option("--lr_warmup_decay", tv.lr_warmup_decay,
                                            "The warmup's factor of --lr (above 0, at most 1)")
                                 ->check(float_in(0, 1));
  schedule.tv_step_size =
      app.add_option("--lr_step_size", tv.lr_step_size, "steplr: epochs between decays")
          ->transform(integer_in(1, kMaxEpochs));
  schedule.tv_gamma = app.add_option("--lr_gamma", tv.lr_gamma,
                                     "steplr, multisteplr, exponentiallr: the factor of each "
                                     "decay (above 0, at most 1)")
                          ->check(float_in(0, 1));
  schedule.tv_min =
      app.add_option("--lr_min", tv.lr_min, "cosineannealinglr: the last rate (eta_min)")
          ->check(float_at_least(0));
  // A list, comma separated or repeated: each time adds to it.
  schedule.tv_milestones =
      app.add_option("--lr_milestones", tv.lr_milestones,
                     "multisteplr: the epochs after the warmup where the rate decays, e.g. "
                     "150,225")
          ->delimiter(',')
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
          ->transform(integer_in(1, kMaxEpochs));

  app.option_defaults()->group("Logs, checkpoints and weights");
  app.add_option("--log_steps", t.log_steps, "Steps between training log lines")
      ->transform(integer_in(1, kMaxInt));
  add_switch(app, "--metrics_debug", t.metrics_debug, "Print a metrics report after every epoch");
  app.add_option("--target_accuracy", f.target_accuracy,
                 "Exit with code 21 if the best top-1 accuracy (percent) stays below this")
      ->check(float_in(0, 100));
  app.add_option("--time_to_top1", t.top1_targets,
                 "Top-1 accuracies (percent, comma separated) whose time to reach the log and "
                 "summary.json report, beside --target_accuracy's")
      ->delimiter(',')
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->check(float_above(0))
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

  app.footer(
      "torchvision's reference train.py spellings are taken too (hyphens for underscores, its "
      "names for train's flags): see docs/FLAGS.md");

  const TrainArgs given = read_train_args(app, argc, argv);
  const auto reword = [&](const std::string& message) { return as_given(given, message); };
  const auto fail = [&](const std::string& message) {
    report_flag_error(app, reword(message), exit_code);
    return false;
  };
  if (!given.help) {
    // The model first: a torchvision recipe for a model train lacks is refused as that, before
    // the recipe's flags train lacks too. Then those flags, all in one line, then each value,
    // then one flag given two values under two names.
    if (const std::optional<std::string> model = last_value(given, "--model")) {
      std::string name = *model;
      const std::string problem = model_check(name);
      if (!problem.empty()) return fail("--model: " + problem);
    }
    const std::string problem = torchvision_flags_problem(given);
    if (!problem.empty()) return fail(problem);
  }
  if (!parse_flags(app, given.args, exit_code, reword)) return false;
  const std::string two_values = two_names_problem(given, app);
  if (!two_values.empty()) return fail(two_values);
  if (!f.fake_data && f.data.datadir.empty()) {
    return fail(
        "no data: pass --datadir=DIR (DIR/train/<class>/<image>, DIR/val/<class>/<image>) or "
        "--fake_data");
  }
  for (const auto& [flag, path] :
       {std::pair{"--resume", f.resume}, {"--pretrained", f.pretrained}}) {
    const std::string problem = pytorch_file_problem(flag, path);
    if (!problem.empty()) return fail(problem);
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
  // torchvision ignores these without their policy; a flag that would change nothing is refused.
  const std::string& policy = f.data.train_extras.auto_augment;
  if (ra_magnitude->count() > 0 && policy != "ra") {
    return fail("--ra_magnitude needs --auto_augment=ra");
  }
  if (augmix_severity->count() > 0 && policy != "augmix") {
    return fail("--augmix_severity needs --auto_augment=augmix");
  }
  if (ra_reps_flag->count() > 0 && !ra_sampler) return fail("--ra_reps needs --ra_sampler");
  f.data.ra_reps = ra_sampler ? ra_reps : 0;
  if (image_size->count() > 0 && train_crop->count() > 0 && val_crop->count() > 0) {
    return fail("--image_size does nothing with both --train_crop_size and --val_crop_size");
  }
  if (!t.model_ema.enabled && (model_ema_steps->count() > 0 || model_ema_decay->count() > 0)) {
    return fail("--model_ema_steps and --model_ema_decay need --model_ema");
  }
  if (!(t.model_ema.decay > 0.0 && t.model_ema.decay < 1.0)) {
    return fail("--model_ema_decay must be above 0 and below 1, got " +
                std::to_string(t.model_ema.decay));
  }
  if (t.model_ema.enabled && t.num_epochs == 0) {
    return fail(
        "--model_ema needs --num_epochs >= 1: torchvision divides its decay's adjustment by it");
  }
  if (t.model_ema.enabled && f.evaluate) {
    return fail("--model_ema and --evaluate: --evaluate scores the model's own weights");
  }
  const std::string schedule_problem = lr_schedule_problem(schedule, tv, t.num_epochs);
  if (!schedule_problem.empty()) return fail(schedule_problem);
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
  if (f.target_accuracy > 0) t.top1_targets.push_back(f.target_accuracy);
  std::sort(t.top1_targets.begin(), t.top1_targets.end());
  t.top1_targets.erase(std::unique(t.top1_targets.begin(), t.top1_targets.end()),
                       t.top1_targets.end());
  t.flags = flags_record(argc, argv);

  // The XLA script's model-specific defaults, for flags the user did not set.
  if (image_size->count() == 0) t.image_size = default_image_size(f.model);
  f.train_crop_size_given = train_crop->count() > 0;
  f.val_crop_size_given = val_crop->count() > 0;
  t.test_image_size = f.val_crop_size_given ? val_crop_size : t.image_size;
  if (f.train_crop_size_given) t.image_size = train_crop_size;
  f.data.test_image_size = t.test_image_size;
  const std::string resize_problem =
      apply_test_resize_flags(test_resize, f.data.augment, t.test_image_size, f.data.resampling);
  if (!resize_problem.empty()) return fail(resize_problem);
  const bool is_resnet50 = f.model == "resnet50";
  t.lr_schedule.lr = lr->count() > 0 ? t.lr_schedule.lr : (is_resnet50 ? 0.5f : 0.1f);
  if (schedule.tv_scheduler->count() > 0) {
    t.lr_schedule.type = "none";  // torchvision's schedule instead
  } else if (schedule.xla_type->count() == 0) {
    t.lr_schedule.type = is_resnet50 ? "WarmupAndExponentialDecayScheduler" : "none";
  }
  return true;
}

}  // namespace xtrain
