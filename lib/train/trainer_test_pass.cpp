// The Trainer's test passes: each core evaluates its shard of the test set, and the counts are
// summed exactly over every core (trainer.cpp runs them after each training epoch).
#include <spdlog/spdlog.h>

#include "lib/train/accuracy.h"
#include "lib/train/log_lines.h"
#include "lib/train/trainer_core.h"

namespace xtrain {

TrainResult Trainer::evaluate() {
  TrainResult result;
  run_on_cores([&](Core& core) { evaluate_core(core, result); });
  return result;
}

void Trainer::evaluate_core(Core& core, TrainResult& result) {
  const int epoch = first_epoch_ - 1;  // the epochs the weights were trained for
  const TestCounts counts = test_epoch(core, epoch);
  if (counts.interrupted) {
    if (core.rank == 0) result.interrupted = true;
    return;
  }
  report_test(core, epoch, counts);
  if (core.rank == 0) {
    result.final_top1 = counts.percent(counts.top1);
    result.final_top5 = counts.percent(counts.top5);
    result.final_samples = static_cast<int64_t>(counts.total);
    result.final_nonfinite = static_cast<int64_t>(counts.nonfinite);
    result.final_weights_nonfinite = counts.weights_nonfinite;
    result.max_top1 = counts.scores() ? result.final_top1 : 0.0;
  }
}

// The accuracy lines of one test pass, and how many samples had non-finite outputs if any.
void Trainer::report_test(Core& core, int epoch, const TestCounts& counts) {
  print_once(core, epoch_test_end_line(epoch, clock_time(), counts.percent(counts.top1)));
  print_once(core, epoch_top5_line(epoch, counts.percent(counts.top5),
                                   static_cast<int64_t>(counts.total)));
  const auto total = static_cast<int64_t>(counts.total);
  if (counts.weights_nonfinite) {
    print_once(core, epoch_nonfinite_weights_line(epoch, total));
  } else if (counts.nonfinite > 0) {
    print_once(core, epoch_nonfinite_line(epoch, static_cast<int64_t>(counts.nonfinite), total));
  }
}

Trainer::TestCounts Trainer::test_ema(Core& core, int epoch) {
  TestCounts counts;
  {
    const EmaSwap swap(*core.ema, core.replica.store());
    counts = test_epoch(core, epoch);
  }
  if (!counts.interrupted) {
    print_once(core, epoch_test_ema_end_line(epoch, clock_time(), counts.percent(counts.top1)));
  }
  return counts;
}

Trainer::TestCounts Trainer::test_epoch(Core& core, int epoch) {
  core.replica.release_plan_memory();  // the training plans' arenas, while testing runs
  BatchSource& source = *core.test;
  source.start_epoch(epoch);
  const int64_t steps = test_steps(source);

  // top-1 correct, top-5 correct, samples, samples with non-finite outputs, and (set once the
  // pass is over) whether the weights are not finite
  double counts[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
  for (int64_t step = 0;; ++step) {
    const int n = step < steps ? source.next(core.images(), core.labels.data()) : 0;
    // Every batch the cores vote: a stop ends the pass within one batch on every core, and a
    // core whose shard is done keeps meeting the others until every shard is.
    double votes[2] = {stop_.requested() ? 1.0 : 0.0, n > 0 ? 1.0 : 0.0};
    mesh_.all_reduce_sum(core.rank, votes, 2);
    if (votes[0] > 0) {
      TestCounts stopped;
      stopped.interrupted = true;
      return stopped;
    }
    if (votes[1] == 0) break;
    if (n == 0) continue;
    Plan& plan = plan_for(core, n, PlanMode::kEval);
    load_batch(core, plan, n);
    plan.forward(core.exec);
    const TensorView logits = plan.logits();
    const int classes = static_cast<int>(logits.shape[1]);
    counts[0] += count_top_k_correct(logits.f32(), core.labels.data(), n, classes, 1);
    counts[1] += count_top_k_correct(logits.f32(), core.labels.data(), n, classes, 5);
    counts[2] += n;
    counts[3] += count_nonfinite_rows(logits.f32(), n, classes);
    if (step % options_.log_steps == 0) {
      spdlog::info(test_line(core.ordinal, step, epoch, clock_time()));
    }
  }
  // Weights that are not finite can still give finite outputs (an infinite running_var scales a
  // channel to 0): such a model has diverged all the same, and none of its answers counts. The
  // replicas are equal, so one core of each process looks, and the sum below tells every core.
  counts[4] = core.rank == 0 && !weights_finite(core.replica.store()) ? 1.0 : 0.0;
  // Exact over all samples: sums of counts, not a mean of per-core percentages.
  mesh_.all_reduce_sum(core.rank, counts, 5);
  TestCounts result{counts[0], counts[1], counts[2], counts[3]};
  if (counts[4] > 0) {
    result.weights_nonfinite = true;
    result.top1 = result.top5 = 0.0;
    result.nonfinite = result.total;
  }
  return result;
}

}  // namespace xtrain
