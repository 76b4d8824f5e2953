#include "lib/parallel/process_group.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "lib/base/check.h"
#include "lib/parallel/pairwise_sum.h"
#include "lib/parallel/slices.h"

namespace xtrain {
namespace {

// Variables the launchers set in each process they start: Open MPI's mpirun, PMIx (srun
// --mpi=pmix, newer mpirun), PMI-1/2 (srun --mpi=pmi2, MPICH's launchers).
bool started_by_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

}  // namespace

ProcessGroup ProcessGroup::from_environment() {
  ProcessGroup group;
  if (!started_by_launcher()) return group;
  // One core's thread at a time makes every MPI call: SERIALIZED, not the main thread only.
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  group.initialized_mpi_ = true;
  XTRAIN_CHECK(provided >= MPI_THREAD_SERIALIZED,
               "MPI gives thread level {}, xtrain needs MPI_THREAD_SERIALIZED", provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &group.rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &group.size_);
  MPI_Comm local;  // the processes that share this one's memory: the same machine
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, group.rank_, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &group.local_rank_);
  MPI_Comm_size(local, &group.local_size_);
  MPI_Comm_free(&local);
  return group;
}

bool ProcessGroup::first_in_environment() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    const char* rank = std::getenv(name);
    if (rank != nullptr) return std::string(rank) == "0";
  }
  return true;
}

ProcessGroup& ProcessGroup::alone() {
  static ProcessGroup group;
  return group;
}

ProcessGroup::ProcessGroup(ProcessGroup&& other) noexcept
    : initialized_mpi_(other.initialized_mpi_),
      rank_(other.rank_),
      size_(other.size_),
      local_rank_(other.local_rank_),
      local_size_(other.local_size_),
      cuts_(std::move(other.cuts_)) {
  other.initialized_mpi_ = false;
}

ProcessGroup::~ProcessGroup() { finalize(); }

void ProcessGroup::finalize() {
  if (initialized_mpi_) MPI_Finalize();
  initialized_mpi_ = false;
}

ProcessGroup::Slices& ProcessGroup::cut(size_t n) {
  for (Slices& s : cuts_) {
    if (s.n == n) return s;
  }
  XTRAIN_CHECK(n <= INT_MAX, "ProcessGroup::sum: {} floats is more than MPI counts", n);
  Slices& s = cuts_.emplace_back();
  s.n = n;
  s.counts.resize(size_);
  s.starts.resize(size_);
  for (int r = 0; r < size_; ++r) {
    s.starts[r] = static_cast<int>(slice_start(n, r, size_));
    s.counts[r] = static_cast<int>(slice_start(n, r + 1, size_)) - s.starts[r];
  }
  // Rank r gets slice r of every other rank's buffer, rank by rank; its own stays where it is.
  const int mine = s.counts[rank_];
  s.send_counts = s.counts;
  s.send_counts[rank_] = 0;
  s.received.resize(static_cast<size_t>(mine) * (size_ - 1));
  s.received_counts.assign(size_, mine);
  s.received_counts[rank_] = 0;
  s.received_starts.assign(size_, 0);
  s.blocks.assign(size_, nullptr);
  for (int r = 0, next = 0; r < size_; ++r) {
    if (r == rank_) continue;
    s.received_starts[r] = next * mine;
    s.blocks[r] = s.received.data() + s.received_starts[r];
    ++next;
  }
  return s;
}

void ProcessGroup::sum(float* data, size_t n) {
  if (size_ == 1) return;
  Slices& s = cut(n);
  float* own = data + s.starts[rank_];
  MPI_Alltoallv(data, s.send_counts.data(), s.starts.data(), MPI_FLOAT, s.received.data(),
                s.received_counts.data(), s.received_starts.data(), MPI_FLOAT, MPI_COMM_WORLD);
  s.blocks[rank_] = own;
  pairwise_sum_into(own, s.blocks.data(), size_, s.counts[rank_]);
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, data, s.counts.data(), s.starts.data(),
                 MPI_FLOAT, MPI_COMM_WORLD);
}

void ProcessGroup::sum(double* values, int count) {
  if (size_ == 1) return;
  MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

void ProcessGroup::all_gather(const double* mine, size_t n, double* all) {
  if (size_ == 1) {
    std::copy_n(mine, n, all);
    return;
  }
  XTRAIN_CHECK(n <= INT_MAX, "ProcessGroup::all_gather: {} doubles is more than MPI counts", n);
  const int count = static_cast<int>(n);
  MPI_Allgather(mine, count, MPI_DOUBLE, all, count, MPI_DOUBLE, MPI_COMM_WORLD);
}

std::optional<ProcessGroup::Failure> ProcessGroup::first_failure(const std::string& message) {
  if (size_ == 1) {
    if (message.empty()) return std::nullopt;
    return Failure{0, 1, message};
  }
  int first = message.empty() ? size_ : rank_;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == size_) return std::nullopt;
  Failure failure;
  failure.rank = first;
  failure.failed = message.empty() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &failure.failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  failure.message = broadcast(first, message);
  return failure;
}

std::string ProcessGroup::broadcast(int root, const std::string& text) {
  if (size_ == 1) return text;
  int length = rank_ == root ? static_cast<int>(text.size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, root, MPI_COMM_WORLD);
  std::string received = rank_ == root ? text : std::string(length, '\0');
  MPI_Bcast(received.data(), length, MPI_CHAR, root, MPI_COMM_WORLD);
  return received;
}

void ProcessGroup::barrier() {
  if (size_ > 1) MPI_Barrier(MPI_COMM_WORLD);
}

void ProcessGroup::abort(int code) {
  if (size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
}

}  // namespace xtrain
