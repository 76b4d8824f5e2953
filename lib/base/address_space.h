// address_space: how much virtual address space this process has mapped, and how much `ulimit -v`
// (RLIMIT_AS) lets it map. Every mapping counts against that limit, also the ones that take no
// memory yet: thread stacks, malloc's reserved arenas, the libraries' code.
// Not here: what a run will map (lib/train/memory_plan.h).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace xtrain {

// The bytes mapped now: the first field of statm (pages), nullopt when it cannot be read.
std::optional<size_t> address_space_in_use(const std::string& statm = "/proc/self/statm");

// RLIMIT_AS's soft limit in bytes, nullopt when there is none.
std::optional<size_t> address_space_limit();

// Under an address-space limit, makes threads that start from now on allocate from malloc's
// existing arenas: glibc would reserve 64 MB of address space for each new thread's own arena,
// more than a plan can count, so that a run which fits could fail when a thread happens to
// allocate first. The cost, lock contention between threads that allocate at once (decoding
// loaders), is paid only under the limit.
void share_malloc_arenas_under_address_space_limit();

// The address space a new thread reserves for its stack (and guard page): glibc's default
// thread stack, which is RLIMIT_STACK's soft limit when that is finite.
size_t thread_stack_bytes();

}  // namespace xtrain
