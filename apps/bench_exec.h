// BenchExec: every hardware thread, with the GEMM's per-thread blocks allocated once, as a Plan
// hands them out of its arena. Without them each gemm() call would map, fault in and free its
// blocks (huge pages, cleared by the kernel), a cost training never pays, and the benchmarks'
// GEMM paths would look slower than they run in a training step.
#pragma once

#include <algorithm>
#include <thread>

#include "lib/kernels/thread_scratch.h"
#include "lib/parallel/exec.h"
#include "lib/tensor/aligned_buffer.h"

namespace xtrain {

class BenchExec {
 public:
  BenchExec()
      : pool_(static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))),
        scratch_(
            AlignedBuffer::uninitialized(pool_.num_threads() * kernels::thread_scratch_floats())) {}

  Exec exec() { return Exec{&pool_, scratch_.data()}; }
  int num_threads() const { return pool_.num_threads(); }

 private:
  ThreadPool pool_;
  AlignedBuffer scratch_;
};

}  // namespace xtrain
