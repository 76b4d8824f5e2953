// Reads a file of tests/golden/ (written by the scripts/make_*.py generators) from the source
// tree.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace xtrain::testing {

inline nlohmann::json load_golden_file(const std::string& name) {
  const std::string path = std::string(XTRAIN_SOURCE_DIR) + "/tests/golden/" + name;
  std::ifstream file(path);
  EXPECT_TRUE(file.good()) << "cannot read " << path;
  return nlohmann::json::parse(file);
}

}  // namespace xtrain::testing
