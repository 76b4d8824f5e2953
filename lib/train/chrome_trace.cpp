#include "lib/train/chrome_trace.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "lib/base/check.h"

namespace xtrain {

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
    events.push_back({{"name", layer.name()},
                      {"cat", layer.type()},
                      {"ph", "X"},
                      {"pid", 0},
                      {"tid", t.backward ? 1 : 0},
                      {"ts", t.start * 1e6},  // microseconds
                      {"dur", t.seconds * 1e6}});
  }
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary);
    out << nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump() << "\n";
    XTRAIN_CHECK(out.good(), "--profile: cannot write {}", temporary);
  }
  XTRAIN_CHECK(std::rename(temporary.c_str(), path.c_str()) == 0,
               "--profile: cannot rename {} to {}", temporary, path);
}

}  // namespace xtrain
