// Helpers of the flag parser tests: run a parser on an argv and keep what it printed, and make
// hostile argvs (random bytes, real flag names with odd values) from a fixed seed.
#pragma once

#include <gtest/gtest.h>

#include <iostream>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace xtrain::testing {

// What a parser did with one argv.
struct ParseOutcome {
  bool ok = false;  // the parser's answer: go on
  int exit_code = -1;
  std::string out, err;  // printed on std::cout, std::cerr
};

// Runs parse(argc, argv, flags, exit_code) on {tool, args...}, capturing std::cout and std::cerr.
// A parser that throws fails the test.
template <typename Flags>
ParseOutcome run_parser(bool (*parse)(int, char**, Flags*, int*), const std::string& tool,
                        const std::vector<std::string>& args, Flags* flags) {
  std::vector<std::string> storage{tool};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : storage) argv.push_back(arg.data());
  argv.push_back(nullptr);

  std::ostringstream out, err;
  std::streambuf* const cout_buffer = std::cout.rdbuf(out.rdbuf());
  std::streambuf* const cerr_buffer = std::cerr.rdbuf(err.rdbuf());
  ParseOutcome outcome;
  try {
    outcome.ok = parse(static_cast<int>(storage.size()), argv.data(), flags, &outcome.exit_code);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the parser threw: " << e.what();
  }
  std::cout.rdbuf(cout_buffer);
  std::cerr.rdbuf(cerr_buffer);
  outcome.out = out.str();
  outcome.err = err.str();
  return outcome;
}

// A refusal as users must see it: exit code 2 and exactly one line "TOOL: error: ..." on stderr,
// with no control character in it.
inline void expect_one_line_error(const ParseOutcome& o, const std::string& tool,
                                  const std::string& context) {
  EXPECT_FALSE(o.ok) << context;
  EXPECT_EQ(o.exit_code, 2) << context;
  EXPECT_EQ(o.err.rfind(tool + ": error: ", 0), 0u) << context << "\n" << o.err;
  ASSERT_FALSE(o.err.empty()) << context;
  EXPECT_EQ(o.err.back(), '\n') << context;
  for (size_t i = 0; i + 1 < o.err.size(); ++i) {
    EXPECT_GE(static_cast<unsigned char>(o.err[i]), 0x20) << context << "\n" << o.err;
  }
  EXPECT_TRUE(o.out.empty()) << context;
}

// The "--name" options a --help text lists.
inline std::vector<std::string> options_in_help(const std::string& help) {
  std::set<std::string> names;
  const std::regex option("--[a-z_][a-z0-9_]*");
  for (auto it = std::sregex_iterator(help.begin(), help.end(), option);
       it != std::sregex_iterator(); ++it) {
    names.insert(it->str());
  }
  return {names.begin(), names.end()};
}

// An argv of up to 8 arguments: real options with odd values (joined by '=' or not, empty,
// numbers at and past every limit), bare values, and random bytes (0x01-0xFF, '-', '=' and
// digits more often). Half of them start from good_args, arguments that parse, so that an odd
// value is also met as the only mistake.
inline std::vector<std::string> random_args(std::mt19937& rng,
                                            const std::vector<std::string>& options,
                                            const std::vector<std::string>& good_args) {
  // clang-format off
  static const std::vector<std::string> odd_values = {
      "", "0", "1", "-1", "2", "inf", "-inf", "nan", "1e39", "-0", "0x10", "010", "1e10", "+5",
      " 7", "3.5", "100", "101", "auto", "resnet20", "imagenet", "none", "ta_wide", "2147483648",
      "9223372036854775807", "9223372036854775808", "-9223372036854775809",
      "18446744073709551616", "1e-50", "nu\xff.dir", "a\nb", "--", "-", "=", "--=", "---x",
      "true", "false"};
  // clang-format on
  const auto pick = [&](const std::vector<std::string>& from) { return from[rng() % from.size()]; };
  const auto random_bytes = [&] {
    std::string s(rng() % 12, '\0');
    for (char& c : s) {
      const uint32_t r = rng() % 8;
      c = r == 0   ? '-'
          : r == 1 ? '='
          : r == 2 ? static_cast<char>('0' + rng() % 10)
                   : static_cast<char>(1 + rng() % 255);
    }
    return s;
  };
  std::vector<std::string> args;
  if (rng() % 2 == 0) args = good_args;
  const int n = static_cast<int>(rng() % (args.empty() ? 9 : 3));
  for (int i = 0; i < n; ++i) {
    switch (rng() % 7) {
      case 0:
        args.push_back(pick(options) + "=" + pick(odd_values));
        break;
      case 1:
        args.push_back(pick(options));
        args.push_back(pick(odd_values));
        break;
      case 2:
        args.push_back(pick(options) + "=" + random_bytes());
        break;
      case 3:
        args.push_back(pick(options));
        break;
      case 4:
        args.push_back(random_bytes());
        break;
      default:
        args.push_back(pick(good_args));
        break;
    }
  }
  return args;
}

}  // namespace xtrain::testing
