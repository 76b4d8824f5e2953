#include "lib/train/memory_budget.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

#include "lib/base/check.h"

namespace xtrain {
namespace {

// cgroup v1 says "no limit" with a number near 2^63 (the largest page count, in bytes).
constexpr uint64_t kCgroupV1NoLimit = uint64_t{1} << 62;

// The first word of a file, or nullopt when it cannot be read.
std::optional<std::string> first_word(const std::string& path) {
  std::ifstream file(path);
  std::string word;
  if (!(file >> word)) return std::nullopt;
  return word;
}

std::optional<uint64_t> number_in(const std::string& path) {
  const std::optional<std::string> word = first_word(path);
  if (!word || word->empty() ||
      !std::all_of(word->begin(), word->end(), [](char c) { return std::isdigit(c); })) {
    return std::nullopt;
  }
  return std::strtoull(word->c_str(), nullptr, 10);
}

// MemAvailable from /proc/meminfo ("MemAvailable:   22072512 kB").
std::optional<uint64_t> meminfo_available(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  while (std::getline(file, line)) {
    std::istringstream fields(line);
    std::string key, unit;
    uint64_t kilobytes = 0;
    if (fields >> key >> kilobytes >> unit && key == "MemAvailable:" && unit == "kB") {
      return kilobytes * 1024;
    }
  }
  return std::nullopt;
}

// The memory cgroup paths of this process in /proc/self/cgroup: v2's ("0::/path") and v1's
// ("4:memory:/path"; the controllers may be a list, "4:cpu,memory:/path").
struct CgroupPaths {
  std::optional<std::string> v2, v1;
};

CgroupPaths cgroup_paths(const std::string& self_cgroup) {
  CgroupPaths paths;
  std::ifstream file(self_cgroup);
  std::string line;
  while (std::getline(file, line)) {
    const size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = "," + line.substr(first + 1, second - first - 1) + ",";
    const std::string path = line.substr(second + 1);
    if (line.compare(0, first, "0") == 0 && controllers == ",,") paths.v2 = path;
    if (controllers.find(",memory,") != std::string::npos) paths.v1 = path;
  }
  return paths;
}

// The cgroup at `path` and each ancestor up to the root: "/a/b", "/a", "/".
std::vector<std::string> self_and_ancestors(std::string path) {
  std::vector<std::string> levels;
  while (!path.empty() && path != "/") {
    levels.push_back(path);
    path = path.substr(0, path.rfind('/'));
  }
  levels.push_back("");  // the root, as a suffix of the mount point
  return levels;
}

// The least that the cgroup at `path` or any ancestor still allows (limit - usage), over the
// levels whose limit and usage both read as numbers; nullopt when none does.
std::optional<uint64_t> cgroup_room(const std::string& root, const std::string& path,
                                    const char* limit_file, const char* usage_file,
                                    uint64_t no_limit) {
  std::optional<uint64_t> room;
  for (const std::string& level : self_and_ancestors(path)) {
    const std::optional<uint64_t> limit = number_in(root + level + "/" + limit_file);
    const std::optional<uint64_t> usage = number_in(root + level + "/" + usage_file);
    if (!limit || !usage || *limit >= no_limit) continue;  // v2's "max" is not a number
    const uint64_t left = *limit > *usage ? *limit - *usage : 0;
    room = std::min(room.value_or(left), left);
  }
  return room;
}

}  // namespace

size_t parse_memory_limit(const std::string& text) {
  const auto bad = [&](const char* why) {
    return fmt::format(
        "XTRAIN_MEMORY_LIMIT={}: {}: expected bytes with an optional K, M, G or T "
        "suffix, e.g. XTRAIN_MEMORY_LIMIT=4G",
        text, why);
  };
  XTRAIN_CHECK(!text.empty() && std::isdigit(static_cast<unsigned char>(text[0])), "{}",
               bad("not a number"));
  XTRAIN_CHECK(text.size() < 2 || std::tolower(text[1]) != 'x', "{}", bad("not a decimal number"));
  // Digits and a point, then the suffix: strtod alone would also read exponents and hexadecimal.
  const size_t digits = std::min(text.find_first_not_of("0123456789."), text.size());
  const std::string number_text = text.substr(0, digits), suffix = text.substr(digits);
  char* end = nullptr;
  const double number = std::strtod(number_text.c_str(), &end);
  XTRAIN_CHECK(*end == '\0', "{}", bad("not a number"));
  const std::string units = "KMGT";
  const size_t unit = suffix.size() == 1 ? units.find(std::toupper(suffix[0])) : std::string::npos;
  XTRAIN_CHECK(suffix.empty() || unit != std::string::npos, "{}", bad("unknown suffix"));
  const double bytes = suffix.empty() ? number : std::ldexp(number, 10 * (int(unit) + 1));
  XTRAIN_CHECK(bytes >= 1.0, "{}", bad("must be at least 1 byte"));
  XTRAIN_CHECK(bytes < std::ldexp(1.0, 63), "{}", bad("too large"));
  return static_cast<size_t>(bytes);
}

std::optional<size_t> available_memory(const char* limit, int local_processes, size_t thread_stacks,
                                       const MemoryBudgetFiles& files) {
  std::optional<uint64_t> available;
  const auto lower = [&](std::optional<uint64_t> room) {
    if (room) available = std::min(available.value_or(*room), *room);
  };
  // The machine's memory, shared by the job's processes on it.
  lower(meminfo_available(files.meminfo));
  const CgroupPaths cgroup = cgroup_paths(files.self_cgroup);
  if (cgroup.v2) {
    lower(cgroup_room(files.cgroup_v2_root, *cgroup.v2, "memory.max", "memory.current",
                      std::numeric_limits<uint64_t>::max()));
  }
  if (cgroup.v1) {
    lower(cgroup_room(files.cgroup_v1_memory_root, *cgroup.v1, "memory.limit_in_bytes",
                      "memory.usage_in_bytes", kCgroupV1NoLimit));
  }
  if (limit != nullptr && *limit != '\0') lower(parse_memory_limit(limit));
  if (available) *available /= std::max(local_processes, 1);
  // This process's own address space.
  const std::optional<size_t> mapped = address_space_in_use(files.statm);
  if (files.rlimit_as && mapped) {
    const uint64_t taken = uint64_t{*mapped} + thread_stacks;
    lower(*files.rlimit_as > taken ? *files.rlimit_as - taken : 0);
  }
  if (!available) return std::nullopt;
  return static_cast<size_t>(*available);
}

}  // namespace xtrain
