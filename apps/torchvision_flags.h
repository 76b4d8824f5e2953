// torchvision's spellings of train's flags, so that the commands published with torchvision's
// weights (references/classification/train.py) run unchanged: any long flag may be written with
// hyphens for underscores (in its name, never in its value: --lr-scheduler is --lr_scheduler),
// some flags have another name there (--epochs is --num_epochs, -b is --batch_size), and the
// script's flags train lacks are named in one line, never as CLI11's "not expected". Which flags
// exist and which take a value, the CLI::App says: a flag added to train later takes its
// hyphenated spelling, and a torchvision flag train gains stops being refused, with no change here.
// Not here: train's flags and their checks (train_flags.cpp, flag_checks.h).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace xtrain {

// One flag as given.
struct GivenFlag {
  std::string spelling;  // as written: "--lr-scheduler", "-b", "--num_epochs"
  std::string name;      // train's: "--lr_scheduler", "--batch_size", "--num_epochs"
  // "--flag=value", "--flag value" or "-bvalue"; none for a bare switch, or a value missing.
  std::optional<std::string> value;
  bool train_has = false;  // the app has `name`; false: a torchvision flag train lacks
};

struct TrainArgs {
  std::vector<std::string> args;  // argv[1..] under train's names, for CLI11
  std::vector<GivenFlag> flags;   // every flag given that train or torchvision has, in order
  bool help = false;              // --help or -h: nothing else is checked
};

// argv[1..] with torchvision's spellings written as train's. Torchvision's flags train lacks, or
// does without (--device=cpu, --use-deterministic-algorithms), leave args; flags neither has stay
// as written, for CLI11 to refuse; after "--" nothing is a flag.
TrainArgs read_train_args(const CLI::App& app, int argc, char** argv);

// The last value given to `name` (train's spelling), if any.
std::optional<std::string> last_value(const TrainArgs& given, const std::string& name);

// What is refused of torchvision's flags, as one line, or "": every flag train lacks yet, named
// as given in one line, then a flag train does its own way (--start-epoch, --device other than
// cpu, --world-size, --dist-url).
std::string torchvision_flags_problem(const TrainArgs& given);

// "--epochs=10 and --num_epochs=5 are one flag ..." for the first flag (in the order given) given
// under two names with different values, or "". A name given twice takes its last value, as
// argparse does, or all of them for a flag that gathers its values (--lr_milestones). For flags
// whose values CLI11 has accepted: a bad value is said as that first.
std::string two_names_problem(const TrainArgs& given, const CLI::App& app);

// `message` as said of a flag given under another name: "--batch_size: expected ..." becomes
// "--batch_size: expected ... (given as -b)" when -b was given for it.
std::string as_given(const TrainArgs& given, const std::string& message);

}  // namespace xtrain
