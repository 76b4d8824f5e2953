#include "apps/job_settings.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>

#include "lib/base/check.h"

namespace xtrain {

JobSettings job_settings(const TrainFlags& flags) {
  const TrainerOptions& t = flags.trainer;
  const ImageFolderOptions& data = flags.data;
  const TorchvisionLROptions& tv = t.lr_schedule.torchvision;
  const auto text = [](const auto& value) { return fmt::format("{}", value); };
  const auto optional_text = [&](const std::optional<float>& value) {
    return value ? text(*value) : std::string("none");
  };
  return {
      {"--model", flags.model},
      {"--bf16 (or XLA_USE_BF16)", text(t.precision == Precision::kBFloat16)},
      {"--fake_data", text(flags.fake_data)},
      {"--fake_images", flags.fake_images},
      {"--datadir", data.datadir},
      {"--num_classes", text(flags.num_classes)},
      {"--train_crop_size (or --image_size)", text(t.image_size)},
      {"--val_crop_size (or --image_size)", text(test_image_side(t))},
      {"--augment", data.augment},
      {"--val_resize_size", text(data.resampling.test_resize_side)},
      {"--interpolation", interpolation_name(data.resampling.interpolation)},
      {"--auto_augment", data.train_extras.auto_augment},
      {"--ra_magnitude", text(data.train_extras.ra_magnitude)},
      {"--augmix_severity", text(data.train_extras.augmix_severity)},
      {"--random_erase", text(data.train_extras.random_erase)},
      {"--drop_last", text(data.drop_last)},
      {"--ra_sampler reps", text(data.ra_reps)},
      {"--strict", text(data.loader.strict)},
      {"--max_image_bytes", text(data.image_limits.max_bytes)},
      {"--max_image_pixels", text(data.image_limits.max_pixels)},
      {"--batch_size", text(t.batch_size)},
      {"--test_set_batch_size", text(t.test_set_batch_size)},
      {"--num_epochs", text(t.num_epochs)},
      {"--num_steps", text(t.num_steps)},
      {"--num_test_steps", text(t.num_test_steps)},
      {"--test_only_at_end", text(t.test_only_at_end)},
      {"--seed", text(t.seed)},
      {"--bucket_cap_mb", text(t.bucket_cap_mb)},
      {"--sync_bn", text(t.sync_bn)},
      {"--lr", text(t.lr_schedule.lr)},
      {"--opt", t.optimizer.name},
      {"--momentum", text(t.optimizer.momentum)},
      {"--weight_decay", text(t.optimizer.weight_decay)},
      {"--norm_weight_decay", optional_text(t.optimizer.norm_weight_decay)},
      {"--bias_weight_decay", optional_text(t.optimizer.bias_weight_decay)},
      {"--transformer_embedding_decay", optional_text(t.optimizer.transformer_embedding_decay)},
      {"--nesterov", text(t.optimizer.nesterov)},
      {"--trust_coefficient", text(t.optimizer.trust_coefficient)},
      {"--label_smoothing", text(t.label_smoothing)},
      {"--clip_grad_norm", optional_text(t.clip_grad_norm)},
      {"--mixup_alpha", text(t.batch_mix.mixup_alpha)},
      {"--cutmix_alpha", text(t.batch_mix.cutmix_alpha)},
      {"--model_ema", text(t.model_ema.enabled)},
      {"--model_ema_steps", text(t.model_ema.steps)},
      {"--model_ema_decay", text(t.model_ema.decay)},
      {"--lr_scheduler_type", t.lr_schedule.type},
      {"--lr_scheduler_divisor", text(t.lr_schedule.divisor)},
      {"--lr_scheduler_divide_every_n_epochs", text(t.lr_schedule.divide_every_n_epochs)},
      {"--num_warmup_epochs", text(t.lr_schedule.num_warmup_epochs)},
      {"--lr_scheduler", tv.lr_scheduler},
      {"--lr_warmup_epochs", text(tv.lr_warmup_epochs)},
      {"--lr_warmup_method", tv.lr_warmup_method},
      {"--lr_warmup_decay", text(tv.lr_warmup_decay)},
      {"--lr_step_size", text(tv.lr_step_size)},
      {"--lr_gamma", text(tv.lr_gamma)},
      {"--lr_min", text(tv.lr_min)},
      {"--lr_milestones", fmt::format("{}", fmt::join(tv.lr_milestones, ","))},
      {"--log_steps", text(t.log_steps)},
      {"--metrics_debug", text(t.metrics_debug)},
      {"--target_accuracy", text(flags.target_accuracy)},
      {"--logdir", t.logdir},
      {"--keep_checkpoints", text(t.keep_checkpoints)},
      {"--checkpoint_steps", text(t.checkpoint_steps)},
      {"--resume", flags.resume},
      {"--pretrained", flags.pretrained},
      {"--evaluate", text(flags.evaluate)},
  };
}

std::string settings_text(const JobSettings& settings) {
  std::string text;
  for (const JobSetting& s : settings) {
    text += s.flag + '\0';
    text += s.value + '\0';
  }
  return text;
}

JobSettings settings_from_text(const std::string& text) {
  JobSettings settings;
  std::optional<std::string> flag;  // read, waiting for its value
  for (size_t start = 0, end; start < text.size(); start = end + 1) {
    end = text.find('\0', start);
    if (end == std::string::npos) end = text.size();
    std::string field = text.substr(start, end - start);
    if (flag) {
      settings.push_back({std::move(*flag), std::move(field)});
      flag.reset();
    } else {
      flag = std::move(field);
    }
  }
  return settings;
}

std::string settings_disagreement(const JobSettings& first, const JobSettings& mine, int rank) {
  const std::string other_build = fmt::format(
      "the job's processes run different builds of train: rank 0 and rank {} know other flags "
      "(every machine needs the same build)",
      rank);
  const auto shown = [](const std::string& value) { return value.empty() ? "none" : value; };
  for (size_t i = 0; i < first.size() && i < mine.size(); ++i) {
    if (first[i].flag != mine[i].flag) return other_build;
    if (first[i].value != mine[i].value) {
      return fmt::format("the job's processes disagree on {}: rank 0 has {}, rank {} has {}",
                         first[i].flag, shown(first[i].value), rank, shown(mine[i].value));
    }
  }
  return first.size() == mine.size() ? "" : other_build;
}

void check_job_settings(const TrainFlags& flags, ProcessGroup& processes) {
  if (processes.size() == 1) return;
  const std::string mine = settings_text(job_settings(flags));
  const std::string first = processes.broadcast(0, mine);
  const std::optional<ProcessGroup::Failure> failure = processes.first_failure(
      settings_disagreement(settings_from_text(first), settings_from_text(mine), processes.rank()));
  XTRAIN_CHECK(!failure, "{}", failure ? failure->message : "");
}

}  // namespace xtrain
