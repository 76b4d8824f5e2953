#include "lib/base/address_space.h"

#include <malloc.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>

namespace xtrain {

std::optional<size_t> address_space_in_use(const std::string& statm) {
  size_t pages = 0;
  if (!(std::ifstream(statm) >> pages)) return std::nullopt;
  return pages * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

std::optional<size_t> address_space_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return static_cast<size_t>(limit.rlim_cur);
}

void share_malloc_arenas_under_address_space_limit() {
  if (address_space_limit()) mallopt(M_ARENA_MAX, 1);
}

size_t thread_stack_bytes() {
  size_t stack = size_t{8} << 20, guard = 4096;  // Linux's usual, should the defaults be unknown
  pthread_attr_t defaults;
  if (pthread_getattr_default_np(&defaults) == 0) {
    pthread_attr_getstacksize(&defaults, &stack);
    pthread_attr_getguardsize(&defaults, &guard);
    pthread_attr_destroy(&defaults);
  }
  return stack + guard;
}

}  // namespace xtrain
