#include "lib/parallel/mesh.h"

#include <fmt/format.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <new>
#include <thread>
#include <vector>

#include "lib/base/check.h"
#include "lib/parallel/worker_threads.h"

namespace xtrain {

Mesh::Mesh(int num_cores, ProcessGroup& processes)
    : num_cores_(num_cores),
      processes_(processes),
      barrier_(num_cores),
      all_reduce_(num_cores, barrier_, processes) {
  XTRAIN_CHECK(num_cores >= 1, "--num_cores must be >= 1, got {}", num_cores);
}

int Mesh::threads_per_core(int num_cores, int local_processes) {
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, hardware / local_processes / num_cores);
}

std::string Mesh::device_name(int ordinal) { return fmt::format("xla:{}", ordinal); }

std::string Mesh::core_name(int rank) const {
  const std::string device = device_name(ordinal(rank));
  return processes_.size() > 1 ? fmt::format("rank {} {}", processes_.rank(), device) : device;
}

void Mesh::run(const std::function<void(int rank)>& fn, const std::function<void()>& on_abort) {
  // Each core's failure is kept as thrown and put into words once every core has ended: words
  // take memory, which a core that ran out of it may not get.
  std::vector<std::exception_ptr> failures(num_cores_);
  std::atomic<int> first_failure{-1};
  {
    WorkerThreads cores(num_cores_, [&](int rank) {
      try {
        pthread_setname_np(pthread_self(), device_name(ordinal(rank)).c_str());
        fn(rank);
      } catch (const MeshAborted&) {
        // Stopped because another core failed; that core reports the cause.
      } catch (const std::exception&) {
        failures[rank] = std::current_exception();
        int none = -1;
        if (!first_failure.compare_exchange_strong(none, rank)) return;
        barrier_.abort();
        if (on_abort) on_abort();
      }
    });
  }
  if (first_failure < 0) return;
  std::string cause;
  try {
    std::rethrow_exception(failures[first_failure]);
  } catch (const std::bad_alloc&) {
    cause = "out of memory";
  } catch (const std::exception& e) {
    cause = e.what();
  }
  throw_error(__FILE__, __LINE__, fmt::format("{}: {}", core_name(first_failure), cause));
}

}  // namespace xtrain
