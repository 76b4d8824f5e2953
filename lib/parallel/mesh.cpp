#include "lib/parallel/mesh.h"

#include <fmt/format.h>
#include <pthread.h>

#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

#include "lib/base/check.h"

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
  std::mutex mutex;
  std::string first_error;  // "xla:R: cause"; empty while every core is well
  auto fail = [&](int rank, const std::string& cause) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!first_error.empty()) return;
      first_error = fmt::format("{}: {}", core_name(rank), cause);
    }
    barrier_.abort();
    if (on_abort) on_abort();
  };

  std::vector<std::thread> cores;
  for (int rank = 0; rank < num_cores_; ++rank) {
    cores.emplace_back([&, rank] {
      pthread_setname_np(pthread_self(), device_name(ordinal(rank)).c_str());
      try {
        fn(rank);
      } catch (const MeshAborted&) {
        // Stopped because another core failed; that core reports the cause.
      } catch (const std::bad_alloc&) {
        fail(rank, "out of memory");
      } catch (const std::exception& e) {
        fail(rank, e.what());
      }
    });
  }
  for (std::thread& core : cores) core.join();
  XTRAIN_CHECK(first_error.empty(), "{}", first_error);
}

}  // namespace xtrain
