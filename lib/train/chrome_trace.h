// Chrome trace: a profiling plan's layer timings as a trace JSON file (the "X" complete events of
// the Trace Event Format), which chrome://tracing and ui.perfetto.dev open. Forward and backward
// calls are on two rows ("forward", "backward") of one process; the rebuilds of outputs a plan
// did not keep are on the backward row, named "<layer> (rebuild)".
// Not here: taking the timings (graph/plan.h), summing them up (layer_profile.h).
#pragma once

#include <string>

#include "lib/graph/plan.h"

namespace xtrain {

// Throws xtrain::Error naming --profile now, before any training, if write_chrome_trace could not
// write path: a folder, a missing folder or one that is not writable. Leaves nothing behind.
void check_chrome_trace_path(const std::string& path);

// Writes the file at path through an AtomicFile (atomic_file.h); throws xtrain::Error naming
// --profile and the path when it cannot.
void write_chrome_trace(const Plan& plan, const std::string& path);

}  // namespace xtrain
