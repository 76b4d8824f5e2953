// memory_budget: how many bytes this process may still take, read once before a run starts. It
// is the lower of MemAvailable in /proc/meminfo and what the process's memory cgroup (and each
// ancestor that sets a limit) still allows: v2 memory.max - memory.current ("max": no limit),
// v1 memory.limit_in_bytes - memory.usage_in_bytes. An unreadable file leaves the others to
// decide. XTRAIN_MEMORY_LIMIT, when set, replaces all of them, so users can keep a run under a
// budget of their own.
// Not here: what a run needs (memory_plan.h).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace xtrain {

// Where the budget is read from; tests point these at files of their own.
struct MemoryBudgetFiles {
  std::string meminfo = "/proc/meminfo";
  std::string self_cgroup = "/proc/self/cgroup";  // "0::/path" (v2), "4:memory:/path" (v1)
  std::string cgroup_v2_root = "/sys/fs/cgroup";
  std::string cgroup_v1_memory_root = "/sys/fs/cgroup/memory";
};

// XTRAIN_MEMORY_LIMIT's value in bytes: a number with an optional K, M, G or T suffix (powers of
// 1024, as 4G = 4 GiB). Throws xtrain::Error naming XTRAIN_MEMORY_LIMIT for anything else.
size_t parse_memory_limit(const std::string& text);

// The bytes this process may still take: `limit` (XTRAIN_MEMORY_LIMIT's value; null or empty
// when unset) parsed, or else the lowest the files allow; nullopt when none of them is readable.
std::optional<size_t> available_memory(const char* limit, const MemoryBudgetFiles& files = {});

}  // namespace xtrain
