// memory_budget: how many bytes this process may still take, read once before a run starts. It
// is the lowest of:
// - MemAvailable in /proc/meminfo;
// - what the process's memory cgroup (and each ancestor that sets a limit) still allows: v2
//   memory.max - memory.current ("max": no limit), v1 memory.limit_in_bytes -
//   memory.usage_in_bytes;
// - XTRAIN_MEMORY_LIMIT, when set, so users can keep a run under a budget of their own (it never
//   raises the budget above what the machine has: a run planned on memory that is not there
//   would be killed midway, which the plan is there to prevent);
// these are the machine's, shared by the job's processes on it; and, per process,
// - the address space `ulimit -v` (RLIMIT_AS) leaves: the limit, less what is mapped already
//   (the binary, its libraries, MPI's threads), less the stacks of the threads the run will
//   start, which take address space but hardly any memory.
// An unreadable file leaves the others to decide.
// Not here: what a run needs (memory_plan.h).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "lib/base/address_space.h"

namespace xtrain {

// Where the budget is read from; tests point these at files of their own.
struct MemoryBudgetFiles {
  std::string meminfo = "/proc/meminfo";
  std::string self_cgroup = "/proc/self/cgroup";  // "0::/path" (v2), "4:memory:/path" (v1)
  std::string cgroup_v2_root = "/sys/fs/cgroup";
  std::string cgroup_v1_memory_root = "/sys/fs/cgroup/memory";
  std::string statm = "/proc/self/statm";  // the address space mapped
  std::optional<size_t> rlimit_as = address_space_limit();
};

// XTRAIN_MEMORY_LIMIT's value in bytes: a decimal number with an optional K, M, G or T suffix
// (powers of 1024, as 4G = 4 GiB). Throws xtrain::Error naming XTRAIN_MEMORY_LIMIT for anything
// else (0x10 too: it is not read as hexadecimal).
size_t parse_memory_limit(const std::string& text);

// The bytes this process may still take, as above: `limit` is XTRAIN_MEMORY_LIMIT's value (null
// or empty when unset), local_processes the job's processes on this machine (each gets an equal
// share of the machine's memory), thread_stacks the address space the run's threads will
// reserve. nullopt when nothing is known: no limit set and no file readable.
std::optional<size_t> available_memory(const char* limit, int local_processes, size_t thread_stacks,
                                       const MemoryBudgetFiles& files = {});

}  // namespace xtrain
