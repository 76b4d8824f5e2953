#include "lib/io/top1_milestones.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "lib/base/check.h"

namespace xtrain {

std::optional<Top1Milestone> first_reaching(const std::vector<Top1Milestone>& milestones,
                                            double top1) {
  for (const Top1Milestone& m : milestones) {
    if (m.top1 >= top1) return m;
  }
  return std::nullopt;
}

std::string milestones_json(const std::vector<Top1Milestone>& milestones) {
  nlohmann::json list = nlohmann::json::array();
  for (const Top1Milestone& m : milestones) list.push_back({m.epoch, m.top1, m.run_seconds});
  return list.dump();
}

std::vector<Top1Milestone> parse_milestones(const std::string& text, const std::string& path) {
  const nlohmann::json list = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto bad = [&](const std::string& why) {
    return fmt::format("{}: __metadata__ top1_milestones: {}", path, why);
  };
  XTRAIN_CHECK(list.is_array(), "{}", bad("not a JSON list"));
  std::vector<Top1Milestone> milestones;
  for (const nlohmann::json& entry : list) {
    XTRAIN_CHECK(entry.is_array() && entry.size() == 3 && entry[0].is_number_integer() &&
                     entry[1].is_number() && entry[2].is_number(),
                 "{}", bad("an entry is not [epoch, top1, seconds]"));
    const Top1Milestone m{entry[0].get<int64_t>(), entry[1].get<double>(), entry[2].get<double>()};
    XTRAIN_CHECK(m.epoch >= 1 && m.top1 >= 0.0 && m.top1 <= 100.0 && std::isfinite(m.run_seconds) &&
                     m.run_seconds >= 0.0,
                 "{}",
                 bad(fmt::format("[{}, {}, {}] is out of range", m.epoch, m.top1, m.run_seconds)));
    if (!milestones.empty()) {
      const Top1Milestone& last = milestones.back();
      XTRAIN_CHECK(m.epoch > last.epoch && m.top1 > last.top1 && m.run_seconds >= last.run_seconds,
                   "{}", bad("the entries do not follow one another"));
    }
    milestones.push_back(m);
  }
  return milestones;
}

}  // namespace xtrain
