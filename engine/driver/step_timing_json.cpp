#include "engine/driver/step_timing_json.hpp"

#include "engine/description/operator_words.hpp"

namespace kda::engine {

nlohmann::ordered_json timing_json(const TimingReport& r, const OperatorDescription& op) {
  nlohmann::ordered_json j;
  j["backend"] = r.backend;
  j["clock"] = r.clock;
  j["copy_gbps"] = r.copy_gbps;
  j["classes"] = nlohmann::ordered_json::array();
  for (const ClassTime& c : r.classes) {
    nlohmann::ordered_json e;
    e["class"] = c.cls.name;
    e["config"] = config_line(c.cls.config, op);
    e["cursor"] = c.cls.cursor;
    if (!c.problem.empty()) {
      e["problem"] = c.problem;
    } else {
      e["median_us"] = c.stats.median_us;
      e["p10_us"] = c.stats.p10_us;
      e["p90_us"] = c.stats.p90_us;
      e["runs"] = c.stats.samples;
    }
    e["bytes"] = c.bytes.total();
    e["gbps"] = c.gbps;
    e["copy_fraction"] = c.copy_fraction;
    j["classes"].push_back(std::move(e));
  }
  return j;
}

}  // namespace kda::engine
