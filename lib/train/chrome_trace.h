// Chrome trace: a profiling plan's layer timings as a trace JSON file (the "X" complete events of
// the Trace Event Format), which chrome://tracing and ui.perfetto.dev open. Forward and backward
// calls are on two rows ("forward", "backward") of one process.
// Not here: taking the timings (graph/plan.h), summing them up (layer_profile.h).
#pragma once

#include <string>

#include "lib/graph/plan.h"

namespace xtrain {

// Writes the file at path (through a temporary file renamed into place); throws xtrain::Error
// naming the path when it cannot.
void write_chrome_trace(const Plan& plan, const std::string& path);

}  // namespace xtrain
