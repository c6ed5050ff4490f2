#include "engine/oracles/refusal.hpp"

#include "engine/description/row_plan.hpp"

namespace kda::engine {

std::string refusal_problem(Backend& backend, const StepArgs& host) {
  const WrittenBytes before = snapshot_written(host);
  std::string raised;
  try {
    backend.step(backend.op().bind(host));
  } catch (const std::exception& e) {
    raised = e.what();
  }
  const std::string changed = any_change(before, host);
  if (raised.empty()) return "computed a call it should have refused" + (changed.empty() ? "" : " (wrote " + changed + ")");
  if (!changed.empty()) return "raised \"" + raised + "\" but changed " + changed;
  return "";
}

}  // namespace kda::engine
