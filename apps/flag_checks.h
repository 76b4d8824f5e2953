// What train's and predict's flags accept, said in words ("--batch_size: expected an integer
// from 1 to 65536, got '0'"), and the parse that turns every mistake into one line on stderr.
// Values are checked as written, before CLI11 converts them: CLI11 alone would read "1e39" as an
// infinite float, "1e-400" as 0, "0x10" as 16, "9223372036854775808" as the largest int64 and
// "010" as octal 8.
// Not here: which flags a tool has (train_flags.cpp, predict_flags.cpp).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace xtrain {

// Bounds shared by train and predict: far beyond real use, they keep buffer sizes (batch x
// image_size^2 x channels, classes x features) and thread counts far from overflowing.
inline constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kMaxImageSize = 16384;
inline constexpr int64_t kMaxBatchSize = 65536;
inline constexpr int64_t kMaxClasses = 1 << 20;

// A whole number in [lo, hi], written in decimal. For Option::transform, not check: the value is
// rewritten in canonical decimal, which CLI11's own conversion then reads as the same number.
CLI::Validator integer_in(int64_t lo, int64_t hi);

// A float in [lo, hi], >= lo, or > lo, written in decimal; finite and not rounded to 0 or to
// a subnormal, as every float flag must be.
CLI::Validator float_in(float lo, float hi);
CLI::Validator float_at_least(float lo);
CLI::Validator float_above(float lo);

// One of `allowed`, exactly.
CLI::Validator one_of(std::vector<std::string> allowed);

// A switch's value, for CLI11's add_flag: 1, 0, true or false (a bare --flag is true), as
// XLA_USE_BF16 takes. CLI11 alone also takes yes, on, 2 or -5.
CLI::Validator boolean();

// A path: any bytes, but not none.
CLI::Validator non_empty_path();

// Flags as Python's argparse (and so the XLA script) reads them, for scripts that append
// overrides to a common list: a flag given twice takes its last value; "--flag value" and
// "--flag=value" are the same; --help shows the defaults.
void use_argparse_conventions(CLI::App& app);

// Parses argv into app's options. Returns false when the process should exit with *exit_code at
// once: after --help (0), or after a mistake printed as one line "TOOL: error: ..." (2).
bool parse_flags(CLI::App& app, int argc, char** argv, int* exit_code);
// The same for argv[1..] as strings; `reword`, if given, rewrites a mistake's message first.
bool parse_flags(CLI::App& app, const std::vector<std::string>& args, int* exit_code,
                 const std::function<std::string(const std::string&)>& reword = nullptr);

// Prints "TOOL: error: MESSAGE" as one line (see escape_bytes.h) and sets *exit_code to 2.
void report_flag_error(const CLI::App& app, const std::string& message, int* exit_code);

}  // namespace xtrain
