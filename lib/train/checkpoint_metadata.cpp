#include "lib/train/checkpoint_metadata.h"

#include "lib/base/check.h"

namespace xtrain {

CheckpointInfo checkpoint_info(const std::string& model, const std::string& flags,
                               Precision precision, int64_t epochs_done, int64_t global_step,
                               const RunProgress& progress) {
  CheckpointInfo info;
  info.model = model;
  info.precision = name(precision);
  info.epoch = epochs_done;
  info.global_step = global_step;
  info.flags = flags;
  info.best_top1 = progress.best_top1;
  info.run_seconds = progress.run_seconds;
  info.top1_milestones = progress.top1_milestones;
  return info;
}

ResumePoint resume_point(const CheckpointInfo& info, const std::string& path,
                         const std::string& model, int64_t steps_per_epoch) {
  XTRAIN_CHECK(info.model == model, "{} holds a {}, not a {}", path, info.model, model);
  // A mid-epoch checkpoint holds the epochs completed and the steps taken, which may also end an
  // epoch whose test had not run yet. Divided, not multiplied: no step count can overflow.
  const int64_t steps = steps_per_epoch;
  XTRAIN_CHECK(steps > 0, "{}: cannot resume: the training data gives no step per epoch", path);
  XTRAIN_CHECK(info.epoch <= kMaxEpochs, "{}: epoch {} is past the last epoch a run can have ({})",
               path, info.epoch, kMaxEpochs);
  const int64_t epochs_done = info.global_step / steps, step_in_epoch = info.global_step % steps;
  XTRAIN_CHECK(epochs_done == info.epoch || (epochs_done == info.epoch + 1 && step_in_epoch == 0),
               "{} was saved after {} steps of {} epochs, which does not fit {} steps per epoch "
               "(was --num_steps or --batch_size different?)",
               path, info.global_step, info.epoch, steps);
  XTRAIN_CHECK(info.best_top1 >= 0.0 && info.best_top1 <= 100.0,
               "{}: best_top1 is {}, not a percentage", path, info.best_top1);
  return {static_cast<int>(epochs_done) + 1, step_in_epoch, info.global_step,
          RunProgress{info.best_top1, info.run_seconds, info.top1_milestones},
          /*evaluation_pending=*/epochs_done == info.epoch + 1};
}

}  // namespace xtrain
