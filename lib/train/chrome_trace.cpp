#include "lib/train/chrome_trace.h"

#include <nlohmann/json.hpp>

#include "lib/base/check.h"
#include "lib/io/atomic_file.h"

namespace xtrain {
namespace {

// Runs write, with "--profile: " before the message of any error it throws.
template <typename Write>
void as_profile_flag(Write&& write) {
  try {
    write();
  } catch (const Error& e) {
    throw Error(fmt::format("--profile: {}", e.what()), e.where());
  }
}

}  // namespace

void check_chrome_trace_path(const std::string& path) {
  as_profile_flag([&] { AtomicFile probe(path); });  // dropped uncommitted: removes its file
}

void write_chrome_trace(const Plan& plan, const std::string& path) {
  nlohmann::json events = nlohmann::json::array();
  for (const char* row : {"forward", "backward"}) {
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 0},
                      {"tid", std::string(row) == "backward"},
                      {"args", {{"name", row}}}});
  }
  for (const LayerTiming& t : plan.timings()) {
    const Layer& layer = *plan.layers()[t.node];
    const bool rebuild = t.pass == LayerTiming::Pass::kRebuild;
    // A rebuild runs in the backward, just before the backward that reads its output.
    events.push_back({{"name", rebuild ? layer.name() + " (rebuild)" : layer.name()},
                      {"cat", layer.type()},
                      {"ph", "X"},
                      {"pid", 0},
                      {"tid", t.pass == LayerTiming::Pass::kForward ? 0 : 1},
                      {"ts", t.start * 1e6},  // microseconds
                      {"dur", t.seconds * 1e6}});
  }
  const nlohmann::json trace{{"traceEvents", events}, {"displayTimeUnit", "ms"}};
  as_profile_flag([&] {
    AtomicFile out(path);
    out.write(trace.dump() + "\n");
    out.commit();
  });
}

}  // namespace xtrain
