// The layering of docs/ARCHITECTURE.md, checked on every build of the tests: the folders each
// folder's files may include. This table is the rule; the document shows it. A folder sits above
// the ones it may include, so a lower folder never learns of a higher one (kernels know nothing
// of layers, the data pipeline nothing of the training loop).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace xtrain {
namespace {

namespace fs = std::filesystem;

const std::set<std::string> kCore = {"lib/base", "lib/tensor", "lib/parallel"};

std::set<std::string> with(std::set<std::string> folders, const std::set<std::string>& more) {
  folders.insert(more.begin(), more.end());
  return folders;
}

const std::set<std::string> kBelowGraph = with(kCore, {"lib/kernels", "lib/nn"});
const std::set<std::string> kLib =
    with(kBelowGraph, {"lib/graph", "lib/optim", "lib/io", "lib/train"});

const std::map<std::string, std::set<std::string>> kMayInclude = {
    {"lib/base", {}},
    {"lib/tensor", {"lib/base"}},
    {"lib/parallel", {"lib/base"}},
    {"lib/kernels", kCore},
    {"lib/nn", with(kCore, {"lib/kernels"})},
    {"lib/graph", with(kBelowGraph, {"lib/optim"})},
    {"lib/optim", kCore},
    {"lib/io", with(kBelowGraph, {"lib/graph", "lib/optim"})},
    {"data", kCore},
    {"models", with(kBelowGraph, {"lib/graph"})},
    // The trainer drives compiled plans (lib/graph) and never reaches past them to a layer or a
    // kernel: the loss, the dropout keys and the CPU's facts come through graph and base.
    {"lib/train", with(kCore, {"lib/graph", "lib/optim", "lib/io", "data"})},
    {"apps", with(kLib, {"data", "models"})},
};

// "lib/nn/conv2d.h" -> "lib/nn"; "data/loader.h" -> "data".
std::string folder_of(const std::string& path) {
  const size_t first = path.find('/');
  if (path.compare(0, 4, "lib/") != 0) return path.substr(0, first);
  return path.substr(0, path.find('/', first + 1));
}

// Every include of a project header that the table forbids, as "file:line: includes X".
std::vector<std::string> violations(const fs::path& root) {
  const std::regex include(R"re(^\s*#\s*include\s+"([^"]+)")re");
  std::vector<std::string> found;
  for (const auto& [folder, allowed] : kMayInclude) {
    if (!fs::exists(root / folder)) continue;
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(root / folder)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".h" && ext != ".cpp") continue;
      const std::string file = fs::relative(entry.path(), root).string();
      std::ifstream in(entry.path());
      std::string line;
      for (int number = 1; std::getline(in, line); ++number) {
        std::smatch match;
        if (!std::regex_search(line, match, include)) continue;
        const std::string target = folder_of(match[1]);
        if (target == folder || allowed.count(target) > 0) continue;
        found.push_back(file + ":" + std::to_string(number) + ": " + folder + " includes " +
                        std::string(match[1]));
      }
    }
  }
  return found;
}

TEST(Layering, NoFolderIncludesAFolderAboveIt) {
  for (const std::string& v : violations(XTRAIN_SOURCE_DIR)) ADD_FAILURE() << v;
}

// A new folder must take its place in the table before it holds code.
TEST(Layering, EveryFolderOfCodeHasItsPlace) {
  for (const std::string& top : {"lib", "data", "models", "apps"}) {
    for (const fs::directory_entry& entry :
         fs::recursive_directory_iterator(fs::path(XTRAIN_SOURCE_DIR) / top)) {
      if (entry.path().extension() != ".h" && entry.path().extension() != ".cpp") continue;
      const std::string file = fs::relative(entry.path(), XTRAIN_SOURCE_DIR).string();
      EXPECT_EQ(kMayInclude.count(folder_of(file)), 1u) << file << " is in no layer";
    }
  }
}

// The check itself: a kernel that includes a layer is caught, with its file and line.
TEST(Layering, AnUpwardIncludeIsReported) {
  const fs::path root = fs::temp_directory_path() / ("xtrain_layering_" + std::to_string(getpid()));
  fs::create_directories(root / "lib/kernels");
  std::ofstream(root / "lib/kernels/relu.cpp")
      << "#include \"lib/kernels/relu.h\"\n#include \"lib/tensor/tensor.h\"\n"
      << "#include \"lib/nn/relu.h\"\n";
  const std::vector<std::string> found = violations(root);
  fs::remove_all(root);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0], "lib/kernels/relu.cpp:3: lib/kernels includes lib/nn/relu.h");
}

}  // namespace
}  // namespace xtrain
