#include "lib/train/trainer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "lib/base/check.h"
#include "lib/base/cpu.h"
#include "lib/base/escape_bytes.h"
#include "lib/graph/param_groups.h"
#include "lib/graph/training_loss.h"
#include "lib/parallel/stop_watcher.h"
#include "lib/train/chrome_trace.h"
#include "lib/train/layer_profile.h"
#include "lib/train/log_lines.h"
#include "lib/train/rate_tracker.h"
#include "lib/train/trainer_core.h"
#include "lib/train/wait_share.h"

namespace xtrain {
namespace {

// The optimizer steps of an epoch: --num_steps caps the data's batches.
int64_t trained_steps_per_epoch(const TrainerOptions& o, int64_t batches_per_epoch) {
  return o.num_steps > 0 ? std::min(batches_per_epoch, o.num_steps) : batches_per_epoch;
}

// Like the XLA script, torch_xla's schedule counts the data's full epoch even with --num_steps;
// torchvision's steps after each epoch the run trains, as its reference script does.
LRSchedulerOptions schedule_options(const TrainerOptions& o, int64_t batches_per_epoch) {
  LRSchedulerOptions s = o.lr_schedule;
  s.steps_per_epoch = std::max<int64_t>(1, batches_per_epoch);
  s.steps_per_trained_epoch = std::max<int64_t>(1, trained_steps_per_epoch(o, batches_per_epoch));
  s.num_epochs = o.num_epochs;
  return s;
}

// --metrics_debug's report, under a line saying what the products are computed in.
std::string metrics_report(const Metrics& metrics, Precision precision) {
  return "Precision: " + precision_text(precision, bfloat16_in_hardware()) + "\n" +
         metrics.report();
}

// Room for the run's largest batch, training or test, whose images may differ in size.
BatchBufferSize batch_buffer_for(const Graph& graph, const TrainerOptions& o) {
  return room_for_both(
      batch_buffer_size(graph, o.precision, o.image_size, o.batch_size),
      batch_buffer_size(graph, o.precision, test_image_side(o), o.test_set_batch_size));
}

}  // namespace

int test_image_side(const TrainerOptions& options) {
  return options.test_image_size > 0 ? options.test_image_size : options.image_size;
}

Trainer::Core::Core(int rank, int ordinal, int threads, std::shared_ptr<const Graph> graph,
                    const TrainerOptions& o, std::unique_ptr<BatchSource> train_source,
                    std::unique_ptr<BatchSource> test_source)
    : rank(rank),
      ordinal(ordinal),
      pool(threads),
      exec{&pool},
      replica(std::move(graph), threads, o.precision),
      optimizer(make_optimizer(o.optimizer,
                               param_tensors(replica.graph(), replica.store(), o.optimizer))),
      clip(o.clip_grad_norm ? std::optional<GradNormClip>(*o.clip_grad_norm) : std::nullopt),
      train(std::move(train_source)),
      test(std::move(test_source)),
      lr_scheduler(make_lr_scheduler(schedule_options(o, train->batches_per_epoch()))),
      batch_buffer(batch_buffer_for(replica.graph(), o)),
      image_storage(batch_buffer.image_floats),
      labels(batch_buffer.labels) {
  replica.store().initialize(o.seed);  // the same seed everywhere: identical replicas
}

Trainer::Trainer(std::shared_ptr<const Graph> graph, const TrainerOptions& options,
                 const BatchSourceFactory& train, const BatchSourceFactory& test)
    : options_(options),
      loss_(training_loss(options.label_smoothing)),
      mesh_(options.num_cores, *options.processes),
      stop_(options.stop_requested, mesh_) {
  XTRAIN_CHECK(options.log_steps > 0, "--log_steps must be > 0, got {}", options.log_steps);
  if (!options.profile.empty()) check_chrome_trace_path(options.profile);  // not after an epoch
  const int world = mesh_.world_size();
  for (int rank = 0; rank < mesh_.num_cores(); ++rank) {
    const int ordinal = mesh_.ordinal(rank);
    cores_.push_back(std::make_unique<Core>(rank, ordinal, mesh_.threads_per_core(), graph, options,
                                            train(ordinal, world), test(ordinal, world)));
    if (options.sync_bn) {
      cores_[rank]->exec.batch_replicas = &mesh_.all_reduce();
      cores_[rank]->exec.replica_rank = rank;
    }
    cores_[rank]->ema = make_model_ema(options.model_ema, cores_[rank]->replica.store(),
                                       int64_t{world} * options.batch_size, options.num_epochs);
    // The cores meet in every step's all-reduce, so they must all take the same steps.
    XTRAIN_CHECK(
        cores_[rank]->train->batches_per_epoch() == cores_[0]->train->batches_per_epoch(),
        "the training data gives {} {} batches per epoch but {} {}: every core must take the "
        "same steps",
        Mesh::device_name(ordinal), cores_[rank]->train->batches_per_epoch(),
        Mesh::device_name(cores_[0]->ordinal), cores_[0]->train->batches_per_epoch());
  }
  if (options.processes->size() > 1 && options.bucket_cap_mb > 0 && !options.sync_bn) {
    // Every replica has the same layout: the buckets end where some node's parameters begin.
    const ParamStore& store = cores_[0]->replica.store();
    std::vector<size_t> cuts;
    for (size_t node = 0; node < graph->nodes().size(); ++node)
      cuts.push_back(store.first_param(static_cast<int>(node)));
    const auto cap = static_cast<size_t>(options.bucket_cap_mb * (1 << 20) / sizeof(float));
    bucketed_mean_ = std::make_unique<BucketedMean>(
        mesh_.num_cores(), *options.processes,
        bucket_starts(std::move(cuts), store.num_params(), cap), store.num_params());
  }
}

void Trainer::open_log_dir() {
  // One process of a job keeps the logdir: the one whose core 0 speaks for the job.
  if (log_dir_ == nullptr && !options_.logdir.empty() && cores_[0]->speaks_for_job()) {
    log_dir_ = std::make_unique<LogDir>(options_.logdir, options_.keep_checkpoints);
  }
}

Trainer::~Trainer() = default;

Replica& Trainer::replica(int rank) { return cores_.at(rank)->replica; }

Optimizer& Trainer::optimizer(int rank) { return *cores_.at(rank)->optimizer; }

void Trainer::resume(const std::string& path) {
  const CheckpointInfo info =
      load_checkpoint(path, cores_[0]->replica, cores_[0]->optimizer->state(), options_.model,
                      cores_[0]->ema_state());
  const ResumePoint point = resume_point(info, path, options_.model, steps_per_epoch());
  // The tensors are float32 either way, so a run may change precision; it is said, not silent.
  const std::string precision = name(options_.precision);
  if (!info.precision.empty() && info.precision != precision && cores_[0]->speaks_for_job()) {
    spdlog::info("Note: {} was trained in {}; this run goes on in {}", escape_bytes(path),
                 info.precision, precision);
  }
  for (const auto& core : cores_) {
    if (core->rank != 0) {
      core->replica.copy_state_from(cores_[0]->replica);
      core->optimizer->copy_state_from(*cores_[0]->optimizer);
      if (core->ema) core->ema->copy_from(*cores_[0]->ema);
    }
    core->global_step = point.global_step;
    core->lr_scheduler->seek(point.global_step);
  }
  first_epoch_ = point.first_epoch;  // goes on with that epoch's next batch
  first_step_ = point.first_step;
  best_top1_ = point.progress.best_top1;
  seconds_before_ = point.progress.run_seconds;
  top1_milestones_ = point.progress.top1_milestones;
  evaluation_pending_ = point.evaluation_pending && tests_after(first_epoch_ - 1);
  resumed_ = true;
}

bool Trainer::finished() const {
  return resumed_ && first_epoch_ > options_.num_epochs && !evaluation_pending_;
}

int64_t Trainer::steps_per_epoch() const {
  return trained_steps_per_epoch(options_, cores_[0]->train->batches_per_epoch());
}

int64_t Trainer::test_steps(const BatchSource& test) const {
  const int64_t batches = test.batches_per_epoch();
  return options_.num_test_steps > 0 ? std::min(batches, options_.num_test_steps) : batches;
}

int64_t Trainer::test_steps_per_epoch() const { return test_steps(*cores_[0]->test); }

// Core 0 saves checkpoint-last after a step; the others wait for it at the next all-reduce.
void Trainer::save_mid_epoch(Core& core, int epoch) {
  log_dir_->save_last(core.replica, core.optimizer->state(),
                      checkpoint_info(options_.model, options_.flags, options_.precision, epoch - 1,
                                      core.global_step,
                                      RunProgress{core.best_top1, run_seconds(), top1_milestones_}),
                      core.ema_state());
}

std::vector<std::string> Trainer::load_pretrained(const std::string& path) {
  Replica& first = cores_[0]->replica;
  const std::vector<std::string> reinitialized =
      xtrain::load_pretrained(path, first, /*skip_mismatched_fc=*/true);
  for (const auto& core : cores_) {
    if (core->rank != 0) core->replica.copy_state_from(first);
  }
  return reinitialized;
}

// Runs fn on every core. A failing core, or a stop request, closes every data source so no core
// waits for data; a core woken that way finds the stop in its next vote.
void Trainer::run_on_cores(const std::function<void(Core&)>& fn) {
  std::unique_ptr<StopWatcher> watcher;
  if (options_.stop_requested != nullptr) {
    watcher = std::make_unique<StopWatcher>(*options_.stop_requested, [this] { close_sources(); });
  }
  mesh_.run([&](int rank) { fn(*cores_[rank]); },
            [this] {
              close_sources();
              if (bucketed_mean_) bucketed_mean_->abort();
            });
}

void Trainer::close_sources() {
  for (const auto& core : cores_) {
    core->train->close();
    core->test->close();
  }
}

double Trainer::run_seconds() const { return seconds_before_ + seconds_since(run_start_); }

TrainResult Trainer::run() {
  open_log_dir();
  TrainResult result;
  const auto start = Metrics::Clock::now();
  run_start_ = start;
  run_on_cores([&](Core& core) { run_core(core, result); });
  // A stopped run ends at once (a loader may be stuck in a read): its lock is released now, so
  // that a requeue on another host may take the logdir.
  if (result.interrupted) log_dir_.reset();
  if (log_dir_ != nullptr && !result.interrupted) {
    RunSummary summary;
    summary.max_top1 = result.max_top1;
    summary.final_top1 = result.final_top1;
    summary.final_top5 = result.final_top5;
    summary.max_top5 = result.max_top5;
    summary.epochs = options_.num_epochs;
    summary.total_seconds = seconds_since(start);
    const Core& first = *cores_[0];
    summary.images_per_second = first.training_seconds > 0
                                    ? first.trained_images * world_size() / first.training_seconds
                                    : 0.0;
    summary.flags = options_.flags;
    summary.run_seconds = run_seconds();
    summary.top1_targets = options_.top1_targets;
    summary.top1_milestones = top1_milestones_;
    log_dir_->write_summary(summary);
  }
  result.top1_milestones = top1_milestones_;
  return result;
}

void Trainer::run_core(Core& core, TrainResult& result) {
  RunScores scores;
  scores.max_top1 = best_top1_;
  // A resumed run's logdir already holds model_best once an evaluation of it has scored.
  scores.has_best = first_epoch_ - (evaluation_pending_ ? 1 : 0) > 1;
  core.best_top1 = best_top1_;
  // A run stopped in a test pass evaluates that epoch before it trains the next.
  if (evaluation_pending_ && !end_epoch(core, first_epoch_ - 1, scores)) {
    return stop_core(core, first_epoch_ - 1, result);
  }
  for (int epoch = first_epoch_; epoch <= options_.num_epochs; ++epoch) {
    print_once(core, epoch_train_begin_line(epoch, clock_time()));
    const bool trained = train_epoch(core, epoch);
    print_once(core, epoch_train_end_line(epoch, clock_time()));
    if (!trained || !end_epoch(core, epoch, scores)) return stop_core(core, epoch, result);
  }
  print_once(core, max_accuracy_line(scores.max_top1));
  if (core.rank == 0) {
    const TestCounts& last = scores.last;
    result.max_top1 = scores.max_top1;
    result.max_top5 = scores.max_top5;
    result.final_top1 = last.percent(last.top1);
    result.final_top5 = last.percent(last.top5);
    result.final_samples = static_cast<int64_t>(last.total);
    result.final_nonfinite = static_cast<int64_t>(last.nonfinite);
    result.final_weights_nonfinite = last.weights_nonfinite;
  }
}

bool Trainer::tests_after(int epoch) const {
  return !options_.test_only_at_end || epoch == options_.num_epochs;
}

bool Trainer::end_epoch(Core& core, int epoch, RunScores& scores) {
  bool improved = false;
  TestCounts ema;  // the model average's pass (--model_ema)
  if (tests_after(epoch)) {
    const TestCounts counts = test_epoch(core, epoch);
    if (counts.interrupted) return false;  // an interrupted pass is no evaluation
    scores.last = counts;
    report_test(core, epoch, counts);
    const double top1 = counts.percent(counts.top1), top5 = counts.percent(counts.top5);
    improved = counts.scores() && (!scores.has_best || top1 > scores.max_top1);
    scores.has_best = scores.has_best || improved;
    if (counts.scores()) {
      scores.max_top1 = std::max(scores.max_top1, top1);
      scores.max_top5 = std::max(scores.max_top5, top5);
    }
    core.best_top1 = scores.max_top1;
    if (core.ema) {
      ema = test_ema(core, epoch);
      if (ema.interrupted) return false;
    }
  }
  const int64_t skipped = report_skipped(core, epoch, scores.skipped_images);
  scores.skipped_images = skipped;
  // Replicas are bitwise equal, so core 0's is the model; the others wait at the next collective
  // while it keeps the run's milestones and writes.
  const double seconds = core.rank == 0 ? run_seconds() : 0.0;
  if (improved && core.rank == 0) top1_milestones_.push_back({epoch, scores.max_top1, seconds});
  if (log_dir_ != nullptr && core.rank == 0) {
    log_dir_->append(scores.last.record(epoch, skipped, /*ema=*/false, seconds));
    if (core.ema && tests_after(epoch)) {
      log_dir_->append(ema.record(epoch, skipped, /*ema=*/true, seconds));
    }
    log_dir_->save_epoch(
        core.replica, core.optimizer->state(),
        checkpoint_info(options_.model, options_.flags, options_.precision, epoch, core.global_step,
                        RunProgress{scores.max_top1, seconds, top1_milestones_}),
        improved, core.ema_state());
  }
  if (options_.metrics_debug)
    print_once(core, core.rank == 0 ? metrics_report(metrics_, options_.precision) : "");
  return true;
}

// After a stop in `epoch`: the replicas hold the last step every core took, and core 0 saves them
// as checkpoint-last, from which a resume goes on.
void Trainer::stop_core(Core& core, int epoch, TrainResult& result) {
  if (log_dir_ != nullptr && core.rank == 0) save_mid_epoch(core, epoch);
  if (core.rank == 0) result.interrupted = true;
}

// The unreadable images skipped so far by every core, and a line for those new since `before`.
int64_t Trainer::report_skipped(Core& core, int epoch, int64_t before) {
  double skipped = static_cast<double>(core.train->skipped_images() + core.test->skipped_images());
  mesh_.all_reduce_sum(core.rank, &skipped, 1);
  const auto total = static_cast<int64_t>(skipped);
  if (total > before) {
    if (core.rank == 0) metrics_.add(Counter::kSkippedImages, total - before);
    print_once(core, epoch_skipped_line(epoch, total - before));
  }
  return total;
}

// Step `step` of `epoch` on a plan holding the core's batch: forward, backward, the gradients'
// mean over the cores, SGD at `lr`. Returns the loss; a loss that is not finite ends the run
// before its gradients reach any replica.
float Trainer::train_step(Core& core, Plan& plan, float lr, int epoch, int64_t step) {
  ParamStore& store = core.replica.store();
  auto start = Metrics::Clock::now();
  store.zero_grads();
  // Dropout's masks: a function of the run, the optimizer step and the core, so a rerun or a
  // resumed run draws the same ones.
  plan.forward(core.exec, StepSeed{options_.seed, core.global_step, core.ordinal});
  const float loss = plan.loss();
  XTRAIN_CHECK(std::isfinite(loss), "the loss is {} at epoch {} step {}", loss, epoch, step);
  // In a job with gradient buckets the job's mean is taken bucket by bucket while backward goes
  // on, and AllReduceTime is then the wait for the buckets still open when backward ends.
  std::function<void(int)> after_call;
  if (bucketed_mean_) {
    bucketed_mean_->start(core.rank, store.grads());
    // Two pointers: std::function keeps them inline, so a step still allocates nothing.
    after_call = [this, &core](int call) {
      bucketed_mean_->ready(core.rank, core.replica.store().first_param(call));
    };
  }
  plan.backward(core.exec, after_call);
  metrics_.record(Metric::kExecuteTime, seconds_since(start));

  start = Metrics::Clock::now();
  double across_processes =
      bucketed_mean_ ? bucketed_mean_->finish(core.rank)
                     : mesh_.all_reduce_mean(core.rank, store.grads(), store.num_params());
  // Each core's forward moved its BatchNorm running statistics towards its own batch's. Their
  // mean over the job keeps the replicas bitwise equal, so every checkpoint holds the whole
  // state and an evaluation sees every core's batches. The running averages are linear in the
  // batch statistics, so this is the mean of each core's own averages that timm's distribute_bn
  // takes before an evaluation, kept at every step.
  if (world_size() > 1 && store.num_buffers() > 0) {
    across_processes += mesh_.all_reduce_mean(core.rank, store.buffers(), store.num_buffers());
  }
  metrics_.record(Metric::kAllReduceTime, seconds_since(start));
  if (across_processes > 0)
    metrics_.record(Metric::kAllReduceAcrossProcessesTime, across_processes);

  start = Metrics::Clock::now();
  // After the all-reduce: every replica clips the same gradients alike.
  if (core.clip) core.clip->clip(store.grads(), core.optimizer->tensors(), core.exec);
  core.optimizer->step(store.params(), store.grads(), lr, core.global_step + 1, core.exec);
  core.lr_scheduler->step();
  ++core.global_step;
  metrics_.record(Metric::kOptimizerTime, seconds_since(start));
  if (core.rank == 0) metrics_.add(Counter::kSteps);
  return loss;
}

bool Trainer::train_epoch(Core& core, int epoch) {
  core.replica.release_plan_memory();  // the test plans' arenas, while training runs
  BatchSource& source = *core.train;
  source.start_epoch(epoch);
  const int64_t steps = steps_per_epoch();
  // Resuming mid-epoch: the batches already trained on are read and dropped, so the rest of the
  // epoch sees exactly the batches an uninterrupted run would.
  const int64_t first_step = epoch == first_epoch_ ? first_step_ : 0;
  for (int64_t step = 0; step < first_step; ++step) {
    XTRAIN_CHECK(source.next(core.images(), core.labels.data()) > 0 || stop_.requested(),
                 "the training data ended after {} of {} batches", step, steps);
  }

  RateTracker tracker;
  WaitShare epoch_wait, line_wait;  // since the epoch began, since the previous log line
  Plan* profiled = nullptr;
  const auto epoch_start = Metrics::Clock::now();
  for (int64_t step = first_step; step < steps; ++step) {
    auto start = Metrics::Clock::now();
    const int n = source.next(core.images(), core.labels.data());
    const double waited = seconds_since(start);
    metrics_.record(Metric::kDataWaitTime, waited);
    epoch_wait.add(waited);
    line_wait.add(waited);
    // The cores vote once each has its batch: a stop lands between the same two steps on every
    // core, and a core that a stop woke from a data wait (n == 0) takes no step of its own.
    if (stop_.voted(core.rank)) return false;
    XTRAIN_CHECK(n > 0, "the training data ended after {} of {} batches", step, steps);
    Plan& plan = plan_for(core, n, PlanMode::kTrain);
    load_batch(core, plan, n);
    if (options_.batch_mix.enabled()) mix_batch(core, plan, n);
    if (core.speaks_for_job() && !options_.profile.empty() && n == options_.batch_size) {
      plan.enable_profiling();
      profiled = &plan;
    }

    const float lr = core.lr_scheduler->lr();
    const float loss = train_step(core, plan, lr, epoch, step);
    // torchvision's update, after the step; its epochs count from 0.
    if (core.ema) {
      core.ema->after_step(core.replica.store(), step, options_.model_ema.steps,
                           epoch - 1 < options_.lr_schedule.torchvision.lr_warmup_epochs);
    }

    tracker.add(n);
    core.trained_images += n;
    if (step % options_.log_steps == 0) {
      const double rate = tracker.rate(), global_rate = tracker.global_rate();
      const std::string time = clock_time();
      spdlog::info(training_line(core.ordinal, epoch, step, loss, rate, global_rate, time));
      if (log_dir_ != nullptr) {
        log_dir_->append(TrainRecord{epoch, step, core.ordinal, loss, lr, rate, global_rate, time,
                                     core.global_step, line_wait.share()});
      }
      line_wait.restart();
    }
    if (core.speaks_for_job() && options_.on_progress) {
      Progress progress{epoch, options_.num_epochs, step + 1, steps};
      progress.images_per_second = tracker.global_rate() * world_size();
      progress.data_wait = epoch_wait.share();
      progress.seconds_per_step = seconds_since(epoch_start) / double(step + 1 - first_step);
      options_.on_progress(progress);
    }
    const bool periodic = options_.checkpoint_steps > 0 &&
                          core.global_step % options_.checkpoint_steps == 0 && step + 1 < steps;
    if (log_dir_ != nullptr && core.rank == 0 && periodic) save_mid_epoch(core, epoch);
  }
  core.training_seconds += seconds_since(epoch_start);
  // --profile: core 0's full-batch plan times its layers; the trace covers this epoch's steps.
  if (core.speaks_for_job() && profiled != nullptr) {
    write_chrome_trace(*profiled, options_.profile);
    for (const std::string& line : top_layers_lines(*profiled, /*top=*/10)) spdlog::info(line);
  }
  return true;
}

// The core's plan for a batch of n images, compiled on first use: training plans take training
// images, evaluation plans test images, whose side may differ.
Plan& Trainer::plan_for(Core& core, int n, PlanMode mode) {
  const int compiled_before = core.replica.compiled_plans();
  const double seconds_before = core.replica.compile_seconds();
  const int side = mode == PlanMode::kTrain ? options_.image_size : test_image_side(options_);
  Plan& plan = core.replica.plan_for(Shape{n, side, side, core.replica.graph().input_channels()},
                                     mode, mode == PlanMode::kTrain ? loss_.get() : nullptr);
  if (core.replica.compiled_plans() != compiled_before) {
    metrics_.record(Metric::kCompileTime, core.replica.compile_seconds() - seconds_before);
    metrics_.add(Counter::kCompiledPlans);
  }
  return plan;
}

// Copies the core's batch of n images into the plan, and its labels into a plan with a loss
// (evaluation counts against the core's own). A copy: a batch's size is known only once the
// source has written it, and an epoch's last, partial batch runs on a plan of its own size.
void Trainer::load_batch(Core& core, Plan& plan, int n) {
  plan.set_images(0, n, core.images());
  if (plan.has_loss()) std::copy_n(core.labels.data(), n, plan.labels());
}

// mixup or CutMix on the core's batch in the plan, and the labels' weight for its loss, drawn
// from (seed, optimizer step, core): a rerun, a resumed run and another placement of the cores
// mix alike.
void Trainer::mix_batch(Core& core, Plan& plan, int n) {
  constexpr uint64_t kBatchMixStream = 0x6d69787570;  // "mixup": apart from the data's draws
  Rng rng({options_.seed, static_cast<uint64_t>(core.global_step),
           static_cast<uint64_t>(core.ordinal), kBatchMixStream});
  const TensorView input = plan.input();  // [N, H, W, C]
  const int height = static_cast<int>(input.shape[1]), width = static_cast<int>(input.shape[2]);
  const BatchMix mix = draw_batch_mix(options_.batch_mix, rng, height, width);
  xtrain::mix_batch(mix, input.elements(), n, height, width, static_cast<int>(input.shape[3]));
  plan.set_label_mix(mix.lambda);
}

// Prints a line once for the whole job, after every core of this process has reached this point
// and before any goes on, so its per-core lines never land on the wrong side of it.
void Trainer::print_once(Core& core, const std::string& line) {
  mesh_.barrier();
  if (core.speaks_for_job()) spdlog::info(line);
  mesh_.barrier();
}

}  // namespace xtrain
