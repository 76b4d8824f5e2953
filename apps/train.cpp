// train: the driver. Parses flags, builds the model and the data, trains on the emulated cores,
// and prints the lines test_train_imagenet.py prints (on a terminal, with a status line between
// them). Every error ends here as one line and a non-zero exit. Ctrl-C, SIGTERM (a scheduler's
// stop) or SIGHUP (a closed terminal) stops every core after the current step or test batch; a
// second one ends the process at once. A closed stdout (`train | head`) does not end the run.
// Started by mpirun or srun, it is one process of a job (ProcessGroup): every process trains its
// own cores, and the first prints the job's lines and keeps the logdir.
#include <spdlog/spdlog.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include "apps/job_settings.h"
#include "apps/relayed_stop_signals.h"
#include "apps/run_reporting_errors.h"
#include "apps/train_flags.h"
#include "data/fake_data.h"
#include "data/image_folder_source.h"
#include "data/noise_samples.h"
#include "lib/base/address_space.h"
#include "lib/base/check.h"
#include "lib/base/cpu.h"
#include "lib/base/escape_bytes.h"
#include "lib/parallel/process_group.h"
#include "lib/train/log_lines.h"
#include "lib/train/memory_budget.h"
#include "lib/train/memory_plan.h"
#include "lib/train/status_line.h"
#include "models/registry.h"

namespace xtrain {
namespace {

constexpr int kTargetMissedExitCode = 21;  // as test_train_imagenet.py
constexpr int kNonFiniteExitCode = 22;     // the last evaluation had NaN or infinite outputs
constexpr int kImageNetClasses = 1000;     // --fake_data's default --num_classes

// Set by the first stop signal; the trainer polls it. Lock-free, so a handler may touch it.
std::atomic<bool> stop_requested{false};
std::atomic<int> stop_signal{0};
std::atomic<int64_t> first_stop_ns{0};  // CLOCK_MONOTONIC when the first stop signal came
// Set when a status line may be on the terminal: the stop notice erases it first.
std::atomic<bool> status_line_shown{false};
// Cleared in the processes of a job but the first, so the job says it once.
std::atomic<bool> stop_notice{true};
// Set in a job, where a SIGINT or SIGTERM comes from its launcher (see stop_cause).
std::atomic<bool> in_job{false};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free &&
              std::atomic<int64_t>::is_always_lock_free);

// Stop signals closer than this to the first are the same stop: a wrapper such as `timeout`
// signals both its child and the child's process group, and a terminal's Ctrl-C reaches every
// process of the job.
constexpr int64_t kSameStopNs = 1'000'000'000;

int64_t monotonic_ns() {  // async-signal-safe
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
}

// 128 + the signal, as shells report a process the signal ended: SIGHUP 129, SIGINT 130,
// SIGTERM 143.
int signal_exit_code(int signal) { return 128 + stop_cause(signal); }

const char* signal_name(int signal) {
  switch (stop_cause(signal)) {
    case SIGHUP:
      return "SIGHUP";
    case SIGINT:
      return "SIGINT";
    default:
      return "SIGTERM";
  }
}

// Async-signal-safe: the first signal asks for a stop and says so (a step can take seconds); a
// second one, a second or more later, ends the process at once. Files are written to a temporary
// and renamed, so _exit leaves no half file under a real name.
extern "C" void request_stop(int signal) {
  const int64_t now = monotonic_ns();
  int none = 0;
  if (!stop_signal.compare_exchange_strong(none, signal)) {
    const int64_t first = first_stop_ns;
    if (first == 0 || now - first < kSameStopNs) return;
    _exit(signal_exit_code(signal));
  }
  first_stop_ns = now;
  stop_requested = true;
  static constexpr char kErase[] = "\r\033[K";
  static constexpr char kNotice[] =
      "train: stopping after the current step (a second Ctrl-C or SIGTERM quits at once)\n";
  static constexpr char kJobEnding[] =
      "train: the job's launcher asked for a stop: stopping after the current step, unless it "
      "ends the job first (mpirun does; it also ends a job that lost a process or machine)\n";
  if (!stop_notice) return;
  const bool launcher = in_job && (signal == SIGINT || signal == SIGTERM);
  const char* notice = launcher ? kJobEnding : kNotice;
  const size_t length = launcher ? sizeof(kJobEnding) - 1 : sizeof(kNotice) - 1;
  bool written = !status_line_shown || write(STDOUT_FILENO, kErase, sizeof(kErase) - 1) >= 0;
  written = write(STDERR_FILENO, notice, length) >= 0 && written;
  (void)written;  // nothing to do: the stop goes on without its notice
}

void handle_stop_signals(const ProcessGroup& processes) {
  stop_notice = processes.rank() == 0;
  in_job = processes.size() > 1;
  // SIGUSR1 and SIGUSR2: relayed stops (relayed_stop_signals.h), also to a job of one process.
  const int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2};
  struct sigaction action {};
  action.sa_handler = request_stop;
  sigemptyset(&action.sa_mask);  // one handler at a time: the second sees the first's time
  for (int signal : signals) sigaddset(&action.sa_mask, signal);
  action.sa_flags = SA_RESTART;
  for (int signal : signals) sigaction(signal, &action, nullptr);
}

// A reader that closes stdout (`train ... | head -1`) leaves the run going: writes to the pipe
// fail with EPIPE and are dropped, and metrics and checkpoints still reach --logdir. Set from the
// start, before any line is written.
void ignore_closed_stdout() { std::signal(SIGPIPE, SIG_IGN); }

// On a terminal, a status line between the log lines, redrawn after every step at most once a
// second; none when stdout is a pipe or a file.
void install_status_line(TrainerOptions& options) {
  if (::isatty(STDOUT_FILENO) == 0) return;
  auto status = std::make_shared<StatusLine>(stdout);
  auto logger = std::make_shared<spdlog::logger>("", status);
  logger->set_pattern("%v");
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
  options.on_progress = [status](const Progress& progress) {
    status_line_shown = true;
    status->show(status_text(progress));
  };
}

// Flushes the log however train() ends: on a terminal this erases the status line before an
// error goes to stderr.
struct FlushLogAtExit {
  ~FlushLogAtExit() { spdlog::default_logger()->flush(); }
};

// Ends an interrupted run. Everything it keeps is on disk (checkpoints renamed into place,
// metrics lines flushed), but a loader worker may be stuck in a read that only the end of the
// process interrupts (a FIFO, a hung mount); destroying the trainer would join it, so the
// process ends here.
[[noreturn]] void exit_interrupted(ProcessGroup& processes) {
  const int signal = stop_signal.load();
  spdlog::default_logger()->flush();  // and erases a status line, before stderr's line
  std::cout.flush();
  if (processes.rank() == 0) {
    std::cerr << "train: interrupted (" << signal_name(signal)
              << "): stopped every core after the current step" << std::endl;
  }
  processes.finalize();  // every process stopped at the same step: leave the job cleanly
  std::_Exit(signal_exit_code(signal));
}

// --resume and --pretrained name a file that exists; checked before any work.
void check_weights_file(const char* flag, const std::string& path) {
  if (path.empty()) return;
  XTRAIN_CHECK(std::filesystem::is_regular_file(path), "--{}: {}: {}", flag, path,
               std::filesystem::exists(path) ? "not a file" : "no such file");
}

// --resume's file. --resume=auto takes --logdir's checkpoint-last, or starts afresh with a note
// where there is none yet: a requeued job may have been stopped before its first save.
std::string resume_path(const TrainFlags& flags, const ProcessGroup& processes) {
  if (flags.resume != "auto") return flags.resume;
  const std::string& logdir = flags.trainer.logdir;
  std::string last = LogDir::latest_checkpoint(logdir);
  if (last.empty() && processes.rank() == 0) {
    spdlog::info("Note: --resume=auto: no checkpoint in --logdir {} yet: starting from scratch",
                 escape_bytes(logdir));
  }
  return last;
}

// The processes of a job meet in every all-reduce with their cores, so all must have as many.
void check_same_cores(ProcessGroup& processes, int num_cores) {
  double total = num_cores;
  processes.sum(&total, 1);
  XTRAIN_CHECK(total == double(num_cores) * processes.size(),
               "process {} runs {} cores but the job's {} processes run {} in all: give every "
               "process the same --num_cores (and --batch_size)",
               processes.rank(), num_cores, processes.size(), total);
}

// The memory plan's options from the flags; image folders add what their loaders take.
MemoryPlanOptions memory_plan_options(const TrainFlags& flags, const ProcessGroup& processes) {
  MemoryPlanOptions memory;
  memory.processes = processes.size();
  memory.local_processes = processes.local_size();
  memory.test_set_batch_size = flags.trainer.test_set_batch_size;
  memory.image_size = flags.trainer.image_size;
  memory.test_image_size = flags.trainer.test_image_size;
  memory.precision = flags.trainer.precision;
  memory.trains = !flags.evaluate;
  memory.optimizer = flags.trainer.optimizer;
  memory.model_ema = flags.trainer.model_ema.enabled;
  return memory;
}

RunOutline run_outline(const TrainFlags& flags, const Trainer& trainer) {
  const TrainerOptions& o = flags.trainer;
  RunOutline run;
  run.evaluate = flags.evaluate;
  run.first_epoch = trainer.first_epoch();
  run.num_epochs = o.num_epochs;
  run.steps_per_epoch = trainer.steps_per_epoch();
  run.num_cores = trainer.world_size();
  run.batch_size = o.batch_size;
  run.test_batches = trainer.test_steps_per_epoch();
  run.all_test_batches = o.num_test_steps == 0;
  run.test_only_at_end = o.test_only_at_end;
  run.test_set_batch_size = o.test_set_batch_size;
  return run;
}

// The lines before the first epoch: the model, the memory plan, re-initialized tensors, the run.
void print_outline(const TrainFlags& flags, const Trainer& trainer, const Graph& model,
                   const CoreFit& fit, const std::optional<size_t>& available, int max_cores,
                   const std::vector<std::string>& reinitialized) {
  const TrainerOptions& options = flags.trainer;
  // At the side the run's images reach the model: the test side when it only evaluates.
  const int side = flags.evaluate ? test_image_side(options) : options.image_size;
  const Shape image{1, side, side, model.input_channels()};
  spdlog::info(model_line(flags.model, model.num_parameters(), model.macs(image), side,
                          precision_text(options.precision, bfloat16_in_hardware())));
  spdlog::info(memory_line(fit.num_cores, fit.core_bytes, options.batch_size, options.precision,
                           fit.cache_bytes, fit.total_bytes, available));
  if (fit.capped_from_bytes > 0) {
    spdlog::info(cores_capped_line(fit.num_cores, max_cores, options.batch_size,
                                   fit.capped_from_bytes, *available));
  }
  for (const std::string& name : reinitialized) {
    spdlog::info("Note: {} has another class count in {}; it starts freshly initialized", name,
                 escape_bytes(flags.pretrained));
  }
  spdlog::info(run_line(run_outline(flags, trainer)));
}

// The samples of --fake_images=noise, for the training and the test images, shared by every
// core's FakeData: one set when both have the same side. Null until drawn.
struct FakeNoise {
  std::shared_ptr<const NoiseSamples> train, test;

  static size_t bytes(int train_side, int test_side) {
    return NoiseSamples::bytes_for(train_side) +
           (test_side == train_side ? 0 : NoiseSamples::bytes_for(test_side));
  }
  void draw(int train_side, int test_side, int num_classes, uint64_t seed) {
    train = std::make_shared<const NoiseSamples>(train_side, num_classes, seed);
    test = test_side == train_side
               ? train
               : std::make_shared<const NoiseSamples>(test_side, num_classes, seed);
  }
};

// What start-up makes for the run: the model, the cores that fit, the trainer (resumed or
// pretrained), and what the outline says about them.
struct StartUp {
  std::shared_ptr<const Graph> model;
  std::optional<size_t> available;  // bytes for this process, when known
  int max_cores = 0;
  CoreFit fit;
  std::unique_ptr<Trainer> trainer;
  std::vector<std::string> reinitialized;
};

// Everything before the first step that bad input can stop: the weight files, the data, the
// model and its image size, the memory plan, the trainer and its weights. Throws the error.
// Collective-free, so that each process of a job can fail here on its own.
StartUp start_up(TrainFlags& flags, ProcessGroup& processes) {
  TrainerOptions& options = flags.trainer;
  const std::string resume = resume_path(flags, processes);
  check_weights_file("resume", resume);
  check_weights_file("pretrained", flags.pretrained);
  BatchSourceFactory train_data, test_data;
  MemoryPlanOptions memory_options = memory_plan_options(flags, processes);
  int num_classes = flags.num_classes > 0 ? flags.num_classes : kImageNetClasses;
  // --fake_images=noise: its samples, drawn after the memory check (which counts them).
  const bool noise_images = flags.fake_data && flags.fake_images == "noise";
  auto noise = std::make_shared<FakeNoise>();
  if (flags.fake_data) {
    if (noise_images) {
      memory_options.fake_image_bytes = noise->bytes(options.image_size, test_image_side(options));
    }
    train_data = [&, noise](int rank, int num_replicas) {
      return std::make_unique<FakeData>(FakeData::train_batches(options.batch_size, num_replicas),
                                        options.batch_size, options.image_size, noise->train, rank,
                                        num_replicas);
    };
    test_data = [&, noise](int rank, int num_replicas) {
      return std::make_unique<FakeData>(FakeData::test_batches(options.batch_size, num_replicas),
                                        options.test_set_batch_size, test_image_side(options),
                                        noise->test, rank, num_replicas);
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
    memory_options.partial_train_batch = std::move(folders.partial_train_batch);
    memory_options.partial_test_batch = std::move(folders.partial_test_batch);
    memory_options.train_source_memory = std::move(folders.train_memory);
    memory_options.test_source_memory = std::move(folders.test_memory);
    // An evaluation never reads the training images into their cache.
    memory_options.cache_bytes =
        folders.test_cache_bytes + (flags.evaluate ? 0 : folders.train_cache_bytes);
  }

  StartUp run;
  run.model = build_model(flags.model, num_classes);
  check_image_size(flags.model, *run.model, options.image_size,
                   flags.train_crop_size_given ? "--train_crop_size" : "--image_size");
  check_image_size(flags.model, *run.model, test_image_side(options),
                   flags.val_crop_size_given ? "--val_crop_size" : "--image_size");
  // Memory: the cores that fit at --batch_size, decided before any core takes memory.
  // The processes of the job on this machine share its memory and its cores.
  run.max_cores = flags.num_cores_given ? options.num_cores
                                        : std::max(1, options.num_cores / processes.local_size());
  const MemoryPlan memory(run.model, std::move(memory_options));
  run.available = available_memory(std::getenv("XTRAIN_MEMORY_LIMIT"), processes.local_size(),
                                   memory.thread_stacks(run.max_cores, options.batch_size));
  if (!run.available && processes.rank() == 0) {
    spdlog::warn(
        "warning: cannot read the available memory (/proc/meminfo, cgroup memory "
        "files): not checking that the run fits");
  }
  run.fit = fit_cores(memory, flags.num_cores_given ? options.num_cores : 0, run.max_cores,
                      options.batch_size, run.available);
  share_malloc_arenas_under_address_space_limit();  // before the trainer starts its threads
  if (noise_images) {
    noise->draw(options.image_size, test_image_side(options), num_classes, options.seed);
  }
  options.num_cores = run.fit.num_cores;
  options.test_set_batch_size = memory.test_batch(run.fit.num_cores);  // no core gets more
  run.trainer = std::make_unique<Trainer>(run.model, options, train_data, test_data);
  try {
    if (!resume.empty()) run.trainer->resume(resume);
    if (!flags.pretrained.empty())
      run.reinitialized = run.trainer->load_pretrained(flags.pretrained);
  } catch (const Error& e) {
    throw Error(fmt::format("--{}: {}", flags.resume.empty() ? "pretrained" : "resume", e.what()),
                e.where());
  }
  // Training keeps --logdir; an evaluation, or a run with nothing left to do, leaves it as it is.
  if (!flags.evaluate && !run.trainer->finished()) run.trainer->open_log_dir();
  return run;
}

// Thrown in every process of a job whose start-up failed, after the first has said why: each
// ends with kErrorExitCode without aborting the job.
struct JobStartUpFailed {};

// start_up(), then in a job an agreement: if any process failed, the first process says the
// first failure once (naming its rank unless every process failed), instead of a line per
// process, and every process stops once that line is out.
StartUp start_up_in_agreement(TrainFlags& flags, ProcessGroup& processes) {
  if (processes.size() == 1) return start_up(flags, processes);
  std::optional<StartUp> run;
  std::string error;
  try {
    check_job_settings(flags, processes);  // every process throws the same error, or none
    run.emplace(start_up(flags, processes));
  } catch (const std::bad_alloc&) {
    error = kOutOfMemoryMessage;
  } catch (const std::exception& e) {
    error = e.what();
  }
  const std::optional<ProcessGroup::Failure> failure = processes.first_failure(error);
  if (!failure) return std::move(*run);
  if (processes.rank() == 0) {
    print_error_line("train", failure->failed == processes.size()
                                  ? failure->message
                                  : fmt::format("rank {}: {}", failure->rank, failure->message));
  }
  processes.barrier();  // the first process to end makes mpirun end the others
  throw JobStartUpFailed{};
}

int train(TrainFlags& flags, ProcessGroup& processes) {
  TrainerOptions& options = flags.trainer;
  options.processes = &processes;
  const bool speaks_for_job = processes.rank() == 0;
  // A launcher gives each process a pseudo-terminal even when its own output is a file: a job of
  // several processes draws no status line.
  if (processes.size() == 1) install_status_line(options);
  const FlushLogAtExit flush_log;
  // Stop signals are handled once start-up is done: until then Ctrl-C ends the process at once
  // (a long scan of --datadir), and the trainer reads the flag from its first step.
  options.stop_requested = &stop_requested;
  StartUp run = start_up_in_agreement(flags, processes);
  check_same_cores(processes, run.fit.num_cores);
  handle_stop_signals(processes);
  Trainer& trainer = *run.trainer;
  TrainResult result;
  if (!flags.evaluate && trainer.finished()) {
    // A requeued run that had already ended: its logdir, summary.json included, stays as it is.
    if (speaks_for_job) spdlog::info(nothing_to_do_line(options.num_epochs, trainer.best_top1()));
    result.max_top1 = trainer.best_top1();
  } else {
    if (speaks_for_job) {
      print_outline(flags, trainer, *run.model, run.fit, run.available, run.max_cores,
                    run.reinitialized);
    }
    result = flags.evaluate ? trainer.evaluate() : trainer.run();
    if (speaks_for_job && !flags.evaluate && !result.interrupted) {
      for (double target : flags.trainer.top1_targets) {
        spdlog::info(time_to_top1_line(target, first_reaching(result.top1_milestones, target)));
      }
    }
  }
  if (result.interrupted) exit_interrupted(processes);
  if (result.final_nonfinite > 0) {
    if (speaks_for_job) {
      std::cerr << (result.final_weights_nonfinite
                        ? "train: error: the last evaluation's weights or BatchNorm statistics "
                          "are not finite (the model diverged)\n"
                        : fmt::format("train: error: the last evaluation had non-finite outputs "
                                      "for {} of {} samples (the model diverged)\n",
                                      result.final_nonfinite, result.final_samples));
    }
    return kNonFiniteExitCode;
  }
  if (result.max_top1 < flags.target_accuracy) {
    if (speaks_for_job) spdlog::info(below_target_line(result.max_top1, flags.target_accuracy));
    return kTargetMissedExitCode;
  }
  return 0;
}

}  // namespace
}  // namespace xtrain

int main(int argc, char** argv) {
  xtrain::end_at_once_on_relayed_stops();
  xtrain::ignore_closed_stdout();
  spdlog::set_pattern("%v");
  spdlog::flush_on(spdlog::level::info);  // each line reaches a pipe at once, as print(flush=True)
  xtrain::TrainFlags flags;
  int exit_code = 0;
  if (!xtrain::parse_train_flags(argc, argv, &flags, &exit_code)) return exit_code;
  std::optional<xtrain::ProcessGroup> processes;  // MPI lives as long as main
  bool job_agreed = false;                        // every process of the job is ending
  const int code = xtrain::run_reporting_errors("train", [&] {
    processes.emplace(xtrain::ProcessGroup::from_environment());
    try {
      return xtrain::train(flags, *processes);
    } catch (const xtrain::JobStartUpFailed&) {
      job_agreed = true;
      return xtrain::kErrorExitCode;
    }
  });
  // The run is over: a signal now (mpirun ending the job as a process exits) has no step to stop.
  xtrain::stop_notice = false;
  // After an error the other processes of a job may be waiting for this one in a collective.
  if (code == xtrain::kErrorExitCode && processes && !job_agreed) processes->abort(code);
  return code;
}
