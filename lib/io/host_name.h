// host_name: this machine's name, as files that several machines share record their writer.
#pragma once

#include <string>

namespace xtrain {

// gethostname(2), or "localhost" when it gives nothing.
std::string host_name();

}  // namespace xtrain
