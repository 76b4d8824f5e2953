// ProcessGroup: the processes of one job that an MPI launcher (mpirun, Slurm's srun) started,
// each running a Mesh of emulated cores. A process nobody launched that way is a group of one
// and never touches MPI, so a plain `train` starts, prints and exits exactly as without it.
//
// Sums across processes have one order that does not depend on how many processes there are:
// the pairwise tree over ranks (0+1, 2+3, ..., then (0+1)+(2+3), ...). The Mesh adds its cores
// with the same tree first, so with a power-of-two number of cores per process every placement
// of the same replicas (1 x 4, 2 x 2, 4 x 1) adds the same numbers in the same order and gives the
// same bytes. MPI_Allreduce promises no order (MPI-4.1 §6.9.1), so the sum is done here: each
// rank receives one slice of every other rank's buffer (MPI_Alltoallv), adds them up the tree onto
// its own slice in place, and the slices are gathered back (MPI_Allgatherv): the bytes of a ring
// all-reduce, and no copy of its own.
// Not here: the cores of one process (Mesh), what is summed (Trainer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace xtrain {

class ProcessGroup {
 public:
  // The job this process is part of, from the launcher's environment; MPI is initialized (and
  // finalized by the destructor) only when there is a launcher. One per process.
  static ProcessGroup from_environment();
  // Whether this process is the job's first (rank 0) as the launcher's environment says, known
  // before MPI starts; true for a process nobody launched.
  static bool first_in_environment();
  // A group of one process, without MPI.
  ProcessGroup() = default;
  // The group of this process alone, shared by every Mesh built without a job: a group of one
  // never changes, so one object serves all.
  static ProcessGroup& alone();
  ~ProcessGroup();
  ProcessGroup(ProcessGroup&& other) noexcept;
  ProcessGroup& operator=(ProcessGroup&&) = delete;
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // The processes of the job on this machine and this one's place among them.
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }

  // data[0, n) becomes the sum over the processes, in the tree order, the same bytes on each.
  // Every process calls it with the same n, from one thread at a time.
  void sum(float* data, size_t n);
  // values[0, count) become their sums over the processes. Meant for whole numbers (counts,
  // votes), which double adds exactly in any order.
  void sum(double* values, int count);
  // all[0, size() * n) becomes every process's mine[0, n), in rank order, on every process.
  void all_gather(const double* mine, size_t n, double* all);
  // A failure of some processes of the job: the lowest failing rank, its message, and how many
  // processes failed.
  struct Failure {
    int rank = 0;
    int failed = 0;
    std::string message;
  };
  // Every process calls it with its own error message, "" when it has none; each gets the first
  // failing process's failure, or nothing when every process succeeded. So the job can agree to
  // stop, and say why once instead of once per process.
  std::optional<Failure> first_failure(const std::string& message);
  // Every process calls it with the same root; each gets the root process's text (the others'
  // are not read). Meant for short texts (messages, settings): the length goes as an int.
  std::string broadcast(int root, const std::string& text);
  // Returns once every process has called it.
  void barrier();
  // Leaves the job (MPI_Finalize) before a quick exit; the destructor then has nothing to do.
  // Every process calls it.
  void finalize();
  // Ends every process of the job at once with `code` (after a failure in this one); returns
  // only in a group of one.
  void abort(int code);

 private:
  bool initialized_mpi_ = false;  // this object owns MPI's lifetime
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
  // sum(float*)'s cut of n floats into one slice per rank (MPI's counts and offsets) and its
  // buffers: made once per n (the gradient buffer, or each of its buckets), so a training step
  // allocates nothing.
  struct Slices {
    size_t n = SIZE_MAX;
    std::vector<int> counts, starts;                    // slice r of a buffer
    std::vector<int> send_counts;                       // counts, but none to this rank itself
    std::vector<int> received_counts, received_starts;  // this rank's slice, from each other rank
    std::vector<float> received;
    std::vector<float*> blocks;  // per rank: into received, or (this rank) into the buffer summed
  };
  Slices& cut(size_t n);

  std::vector<Slices> cuts_;
};

}  // namespace xtrain
