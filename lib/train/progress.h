// Progress: where a training run is after a step, for a live status line (status_line.h). The
// Trainer reports it from core 0 after every step when TrainerOptions::on_progress is set.
#pragma once

#include <cstdint>

namespace xtrain {

struct Progress {
  int epoch = 0;
  int num_epochs = 0;
  int64_t step = 0;                // steps of this epoch taken, a resume's skipped ones included
  int64_t steps_per_epoch = 0;     // per core, --num_steps applied
  double images_per_second = 0.0;  // all cores, since this epoch's first step in this run
  double data_wait = 0.0;          // share of this epoch's time core 0 waited for data
  double seconds_per_step = 0.0;   // this epoch's mean, in this run

  // Seconds until this epoch's, and the run's, last training step at this epoch's pace
  // (evaluations not counted).
  double epoch_seconds_left() const { return (steps_per_epoch - step) * seconds_per_step; }
  double run_seconds_left() const {
    return epoch_seconds_left() + (num_epochs - epoch) * steps_per_epoch * seconds_per_step;
  }
};

}  // namespace xtrain
