// positive_integer: the CLI11 check of a flag that must be a whole number from 1 to 2^63 - 1,
// written in decimal. CLI11's own conversion would turn a larger number into the largest one
// silently (strtoll saturates), and a check through double would let 1.5 or inf reach it.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <limits>
#include <string>

namespace xtrain {

inline CLI::Validator positive_integer() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        int64_t number = 0;
        const char* end = value.data() + value.size();
        const auto [stop, error] = std::from_chars(value.data(), end, number);
        if (error == std::errc() && stop == end && number >= 1) return "";
        return fmt::format("expected a whole number from 1 to {}, got '{}'",
                           std::numeric_limits<int64_t>::max(), value);
      },
      "a whole number >= 1");
}

}  // namespace xtrain
