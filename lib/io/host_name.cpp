#include "lib/io/host_name.h"

#include <unistd.h>

namespace xtrain {

std::string host_name() {
  char name[256] = {};
  return ::gethostname(name, sizeof(name) - 1) == 0 && name[0] != '\0' ? name : "localhost";
}

}  // namespace xtrain
