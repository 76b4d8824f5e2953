#include "apps/torchvision_flags.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <utility>

#include "apps/flag_checks.h"

namespace xtrain {
namespace {

// torchvision's names (hyphens already underscores) for flags train names otherwise.
const std::map<std::string, std::string>& renamed() {
  static const std::map<std::string, std::string> names = {
      {"--data_path", "--datadir"},   {"--epochs", "--num_epochs"}, {"-b", "--batch_size"},
      {"--workers", "--num_workers"}, {"-j", "--num_workers"},      {"--output_dir", "--logdir"},
      {"--test_only", "--evaluate"},  {"--amp", "--bf16"},          {"--print_freq", "--log_steps"},
      {"--wd", "--weight_decay"}};
  return names;
}

// Every flag of torchvision's train.py (0.14 and later), hyphens as underscores, and whether it
// takes a value. Those train has are train's; the others are refused or done without.
const std::map<std::string, bool>& torchvision_flags() {
  static const std::map<std::string, bool> takes_value = {{"--data_path", true},
                                                          {"--model", true},
                                                          {"--device", true},
                                                          {"--batch_size", true},
                                                          {"--epochs", true},
                                                          {"--workers", true},
                                                          {"--opt", true},
                                                          {"--lr", true},
                                                          {"--momentum", true},
                                                          {"--wd", true},
                                                          {"--weight_decay", true},
                                                          {"--norm_weight_decay", true},
                                                          {"--bias_weight_decay", true},
                                                          {"--transformer_embedding_decay", true},
                                                          {"--label_smoothing", true},
                                                          {"--mixup_alpha", true},
                                                          {"--cutmix_alpha", true},
                                                          {"--lr_scheduler", true},
                                                          {"--lr_warmup_epochs", true},
                                                          {"--lr_warmup_method", true},
                                                          {"--lr_warmup_decay", true},
                                                          {"--lr_step_size", true},
                                                          {"--lr_gamma", true},
                                                          {"--lr_min", true},
                                                          {"--print_freq", true},
                                                          {"--output_dir", true},
                                                          {"--resume", true},
                                                          {"--start_epoch", true},
                                                          {"--cache_dataset", false},
                                                          {"--sync_bn", false},
                                                          {"--test_only", false},
                                                          {"--auto_augment", true},
                                                          {"--ra_magnitude", true},
                                                          {"--augmix_severity", true},
                                                          {"--random_erase", true},
                                                          {"--amp", false},
                                                          {"--world_size", true},
                                                          {"--dist_url", true},
                                                          {"--model_ema", false},
                                                          {"--model_ema_steps", true},
                                                          {"--model_ema_decay", true},
                                                          {"--use_deterministic_algorithms", false},
                                                          {"--interpolation", true},
                                                          {"--val_resize_size", true},
                                                          {"--val_crop_size", true},
                                                          {"--train_crop_size", true},
                                                          {"--clip_grad_norm", true},
                                                          {"--ra_sampler", false},
                                                          {"--ra_reps", true},
                                                          {"--weights", true},
                                                          {"--backend", true},
                                                          {"--use_v2", false}};
  return takes_value;
}

// "--lr_scheduler" from "--lr-scheduler": the name after the leading "--" only.
std::string underscored(std::string spelling) {
  std::replace(spelling.begin() + 2, spelling.end(), '-', '_');
  return spelling;
}

// What argparse would not take as the value of the flag before it: "-x" or "--x", but not "-1".
bool looks_like_flag(const std::string& arg) {
  return arg.size() > 1 && arg[0] == '-' &&
         !(std::isdigit(static_cast<unsigned char>(arg[1])) || arg[1] == '.');
}

// A switch's value as its meaning, so that --amp and --bf16=1 agree.
std::string switch_value(const std::optional<std::string>& value) {
  if (!value || *value == "1" || *value == "true") return "true";
  if (*value == "0") return "false";
  return *value;
}

// Why a torchvision flag train lacks is refused, when train does that thing its own way; "" for
// one it does without (--device=cpu, --use-deterministic-algorithms); nullopt for a feature train
// lacks yet.
std::optional<std::string> own_way_problem(const GivenFlag& flag) {
  const std::string& s = flag.spelling;
  if (flag.name == "--device") {
    if (flag.value == "cpu") return "";
    return fmt::format("{}={}: train runs on the CPU only: leave {} out or give cpu", s,
                       flag.value.value_or(""), s);
  }
  if (flag.name == "--use_deterministic_algorithms") {
    std::string value = switch_value(flag.value);
    const std::string problem = boolean()(value);  // train's runs are deterministic anyway
    return problem.empty() ? "" : s + ": " + problem;
  }
  if (flag.name == "--start_epoch") {
    return s + ": train resumes at the epoch its checkpoint holds (--resume): leave " + s + " out";
  }
  if (flag.name == "--world_size" || flag.name == "--dist_url") {
    return s +
           ": a job's processes come from its launcher (scripts/train_dist --nproc_per_node=N as "
           "torchrun, mpirun or srun): leave " +
           s + " out";
  }
  return std::nullopt;
}

// Whether `message` names `flag` ("-b" is not named by "--batch_size").
bool says_flag(const std::string& message, const std::string& flag) {
  for (size_t at = message.find(flag); at != std::string::npos; at = message.find(flag, at + 1)) {
    const size_t end = at + flag.size();
    const bool starts = at == 0 || message[at - 1] == ' ';
    if (starts && (end == message.size() || std::strchr(":= ", message[end]) != nullptr)) {
      return true;
    }
  }
  return false;
}

}  // namespace

TrainArgs read_train_args(const CLI::App& app, int argc, char** argv) {
  TrainArgs given;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      given.args.insert(given.args.end(), argv + i, argv + argc);
      break;
    }
    given.help = given.help || arg == "--help" || arg == "-h";
    GivenFlag flag;
    if (arg.size() > 2 && arg.compare(0, 2, "--") == 0) {
      const size_t equals = arg.find('=');
      flag.spelling = arg.substr(0, equals);
      if (equals != std::string::npos) flag.value = arg.substr(equals + 1);
      flag.name = underscored(flag.spelling);
    } else if (arg.size() >= 2 && (arg.compare(0, 2, "-b") == 0 || arg.compare(0, 2, "-j") == 0)) {
      // argparse's short options: -b 32, -b=32 and -b32.
      flag.spelling = flag.name = arg.substr(0, 2);
      if (arg.size() > 2) flag.value = arg.substr(arg[2] == '=' ? 3 : 2);
    } else {
      given.args.push_back(arg);  // a value, or a flag neither has
      continue;
    }
    if (const auto it = renamed().find(flag.name); it != renamed().end()) flag.name = it->second;

    bool takes_value = false;
    if (const CLI::Option* option = app.get_option_no_throw(flag.name)) {
      flag.train_has = true;
      takes_value = option->get_items_expected_max() > 0;
    } else if (const auto it = torchvision_flags().find(flag.name);
               it != torchvision_flags().end()) {
      takes_value = it->second;
    } else {
      given.args.push_back(arg);  // neither's: CLI11 refuses it as written
      continue;
    }
    const bool value_follows =
        takes_value && !flag.value && i + 1 < argc && !looks_like_flag(argv[i + 1]);
    if (value_follows) flag.value = argv[++i];
    if (flag.train_has) {
      given.args.push_back(flag.value && !value_follows ? flag.name + "=" + *flag.value
                                                        : flag.name);
      if (value_follows) given.args.push_back(*flag.value);
    }
    given.flags.push_back(std::move(flag));
  }
  return given;
}

std::optional<std::string> last_value(const TrainArgs& given, const std::string& name) {
  for (auto it = given.flags.rbegin(); it != given.flags.rend(); ++it) {
    if (it->name == name) return it->value;
  }
  return std::nullopt;
}

std::string torchvision_flags_problem(const TrainArgs& given) {
  std::vector<std::string> lacking;
  std::string own_way;
  for (const GivenFlag& flag : given.flags) {
    if (flag.train_has) continue;
    const std::optional<std::string> problem = own_way_problem(flag);
    if (problem) {
      if (own_way.empty()) own_way = *problem;
    } else if (std::find(lacking.begin(), lacking.end(), flag.spelling) == lacking.end()) {
      lacking.push_back(flag.spelling);
    }
  }
  if (!lacking.empty()) {
    return fmt::format(
        "{}: not supported yet (torchvision's train.py has {}, train does not): leave {} out",
        fmt::join(lacking, ", "), lacking.size() == 1 ? "it" : "them",
        lacking.size() == 1 ? "it" : "them");
  }
  return own_way;
}

std::string two_names_problem(const TrainArgs& given, const CLI::App& app) {
  std::vector<std::string> names;  // in the order first given
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> values;  // by name
  for (const GivenFlag& flag : given.flags) {
    if (!flag.train_has) continue;
    const CLI::Option* option = app.get_option_no_throw(flag.name);
    const std::string value =
        option->get_items_expected_max() == 0 ? switch_value(flag.value) : flag.value.value_or("");
    auto& spellings = values[flag.name];
    if (spellings.empty()) names.push_back(flag.name);
    const auto same = std::find_if(spellings.begin(), spellings.end(),
                                   [&](const auto& s) { return s.first == flag.spelling; });
    if (same == spellings.end()) {
      spellings.emplace_back(flag.spelling, value);
    } else if (option->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll) {
      same->second += "," + value;
    } else {
      same->second = value;
    }
  }
  for (const std::string& name : names) {
    const auto& spellings = values[name];
    for (const auto& [spelling, value] : spellings) {
      const auto& [first_spelling, first_value] = spellings.front();
      if (value == first_value) continue;
      return fmt::format("{}={} and {}={} are one flag (train's {}) given two values: give one",
                         first_spelling, first_value, spelling, value, name);
    }
  }
  return "";
}

std::string as_given(const TrainArgs& given, const std::string& message) {
  const std::string name = message.substr(0, message.find_first_of(":= "));
  for (auto it = given.flags.rbegin(); it != given.flags.rend(); ++it) {
    if (it->name == name && !says_flag(message, it->spelling)) {
      return message + " (given as " + it->spelling + ")";
    }
  }
  return message;
}

}  // namespace xtrain
