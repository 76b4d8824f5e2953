#include "apps/flag_checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <iostream>
#include <limits>

#include "lib/base/escape_bytes.h"

namespace xtrain {
namespace {

constexpr int kUsageExitCode = 2;  // as argparse and CLI11 report bad flags

// "--model" from "--model=", when app has an option of that name that takes a value.
const CLI::Option* option_with_empty_value(const CLI::App& app, const std::string& arg) {
  if (arg.size() < 4 || arg.compare(0, 2, "--") != 0 || arg.back() != '=') return nullptr;
  const CLI::Option* option = app.get_option_no_throw(arg.substr(0, arg.size() - 1));
  return option != nullptr && option->get_items_expected_max() > 0 ? option : nullptr;
}

// argv for CLI11, last argument first as its parse(vector) wants. CLI11 reads "--model=" as a
// bare "--model" and takes the *next* argument as the value ("--model= --fake_data" would set
// the model to "--fake_data"); here an empty value stays a value, for the option's check.
std::vector<std::string> arguments(const CLI::App& app, const std::vector<std::string>& given) {
  std::vector<std::string> args;
  bool positional_only = false;  // after "--"
  for (const std::string& arg : given) {
    if (!positional_only && option_with_empty_value(app, arg) != nullptr) {
      args.push_back(arg.substr(0, arg.size() - 1));
      args.emplace_back();
    } else {
      args.push_back(arg);
    }
    positional_only = positional_only || arg == "--";
  }
  std::reverse(args.begin(), args.end());
  return args;
}

constexpr float kMaxFloat = std::numeric_limits<float>::max();

// The float `value` says, written in decimal: digits, a sign, a point and an exponent only, as
// Python's float() reads them, so "0x10" is not 16. Not when the float would be infinite or
// round to 0 or to a subnormal (ERANGE): "1e-400" is out of range, not 0.
enum class FloatText { kNumber, kNotANumber, kOutOfRange };
FloatText read_float(const std::string& value, float* number) {
  const bool decimal =
      !value.empty() && value.find_first_not_of("0123456789+-.eE") == std::string::npos;
  if (!decimal) return FloatText::kNotANumber;
  char* end = nullptr;
  errno = 0;
  *number = std::strtof(value.c_str(), &end);
  if (end != value.c_str() + value.size()) return FloatText::kNotANumber;
  return errno == ERANGE ? FloatText::kOutOfRange : FloatText::kNumber;
}

CLI::Validator float_check(float lo, float hi, bool include_lo, const std::string& allowed) {
  return CLI::Validator(
      [=](std::string& value) -> std::string {
        float number = 0.0f;  // the flags' type: 1e39 is finite as a double, not as a float
        const FloatText text = read_float(value, &number);
        if (text == FloatText::kOutOfRange) {
          return fmt::format("expected {}, got '{}', out of range for a 32-bit float", allowed,
                             value);
        }
        const bool ok =
            text == FloatText::kNumber && (include_lo ? number >= lo : number > lo) && number <= hi;
        return ok ? std::string() : fmt::format("expected {}, got '{}'", allowed, value);
      },
      allowed);
}

}  // namespace

CLI::Validator integer_in(int64_t lo, int64_t hi) {
  const std::string allowed = fmt::format("an integer from {} to {}", lo, hi);
  return CLI::Validator(
      [=](std::string& value) -> std::string {
        int64_t number = 0;
        const char* end = value.data() + value.size();
        const auto [stop, error] = std::from_chars(value.data(), end, number);
        if (value.empty() || error != std::errc() || stop != end || number < lo || number > hi) {
          return fmt::format("expected {}, got '{}'", allowed, value);
        }
        value = std::to_string(number);  // "+5" or "007" would mean other things to CLI11
        return {};
      },
      allowed);
}

CLI::Validator float_in(float lo, float hi) {
  return float_check(lo, hi, /*include_lo=*/true, fmt::format("a number from {} to {}", lo, hi));
}

CLI::Validator float_at_least(float lo) {
  return float_check(lo, kMaxFloat, /*include_lo=*/true, fmt::format("a finite number >= {}", lo));
}

CLI::Validator float_above(float lo) {
  return float_check(lo, kMaxFloat, /*include_lo=*/false, fmt::format("a finite number > {}", lo));
}

CLI::Validator boolean() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (value == "1" || value == "0" || value == "true" || value == "false") return {};
        return fmt::format("expected 1, 0, true or false, got '{}'", value);
      },
      "1, 0, true or false");
}

CLI::Validator one_of(std::vector<std::string> allowed) {
  const std::string names = fmt::format("{}", fmt::join(allowed, ", "));
  return CLI::Validator(
      [=](std::string& value) -> std::string {
        if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return {};
        return fmt::format("expected one of {}, got '{}'", names, value);
      },
      "one of " + names);
}

CLI::Validator non_empty_path() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        return value.empty() ? "expected a path, got ''" : std::string();
      },
      "a path");
}

void use_argparse_conventions(CLI::App& app) {
  app.option_defaults()->always_capture_default()->multi_option_policy(
      CLI::MultiOptionPolicy::TakeLast);
}

bool parse_flags(CLI::App& app, int argc, char** argv, int* exit_code) {
  return parse_flags(app, std::vector<std::string>(argv + 1, argv + argc), exit_code);
}

bool parse_flags(CLI::App& app, const std::vector<std::string>& args, int* exit_code,
                 const std::function<std::string(const std::string&)>& reword) {
  try {
    app.parse(arguments(app, args));
  } catch (const CLI::CallForHelp& e) {
    *exit_code = app.exit(e);
    return false;
  } catch (const CLI::ParseError& e) {
    report_flag_error(app, reword ? reword(e.what()) : e.what(), exit_code);
    return false;
  }
  return true;
}

void report_flag_error(const CLI::App& app, const std::string& message, int* exit_code) {
  // One write: std::cerr writes each piece as it comes, and under mpirun another process's or
  // mpirun's own report can land between the pieces of the line.
  std::cerr << app.get_name() + ": error: " + escape_bytes(message) + "\n" << std::flush;
  *exit_code = kUsageExitCode;
}

}  // namespace xtrain
