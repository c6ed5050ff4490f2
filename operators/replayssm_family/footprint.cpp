#include "operators/replayssm_family/footprint.hpp"

#include <fmt/format.h>

namespace kda::engine {
namespace {

// Why the step may not write that element: what the rows naming its slot do this step.
std::string why_not(const std::string& name, const std::vector<int64_t>& i, const std::vector<RowPlan>& plans) {
  for (std::size_t row = 0; row < plans.size(); ++row) {
    const RowPlan& p = plans[row];
    if (!p.accepted() || p.slot != i[0]) continue;
    if (name == "initial_state") return fmt::format("row {} appends to slot {} (record {}): its checkpoint must not change", row, p.slot, p.record);
    if (p.flush) return fmt::format("row {} flushes slot {}: no ring record may change", row, p.slot);
    const std::string logical = p.ring.circular ? fmt::format(" (window position {}, cache_base {})", p.cursor, p.ring.base) : "";
    return fmt::format("row {} appends record {}{} of slot {}, not record {}", row, p.record, logical, p.slot, i[2]);
  }
  return fmt::format("no accepted row names slot {} this step", i[0]);
}

}  // namespace

std::string footprint_violation(const WrittenBytes& before, const StepArgs& a, const Dims& dims,
                                const std::vector<RowPlan>& plans) {
  // out is written everywhere: only its size is checked. The masks are this thread's
  // scratch, cleared, marked and sealed per step.
  thread_local WriteMask state, d, k, g;
  for (WriteMask* m : {&state, &d, &k, &g}) m->reset();
  const int64_t group = dims.HV / dims.H;
  for (const RowPlan& p : plans) {
    if (!p.accepted()) continue;
    for (int64_t hv = 0; hv < dims.HV; ++hv) {
      if (p.writes_checkpoint())
        for (int64_t v = 0; v < dims.V; ++v) allow_row(state, *a.initial_state, p.slot, hv, v);
      if (p.appends()) {
        allow_row(d, *a.d_cache, p.slot, hv, p.record);
        allow_row(g, *a.g_cache, p.slot, hv, p.record);
        if (hv % group == 0) allow_row(k, *a.k_cache, p.slot, hv / group, p.record);
      }
    }
  }
  for (WriteMask* m : {&state, &d, &k, &g}) m->seal();
  const auto why = [&plans](std::string name) -> WhyNotWritable {
    return [name, &plans](const std::vector<int64_t>& i) { return why_not(name, i, plans); };
  };
  if (before.of("out").size() != storage_size(*a.out)) return "out: storage size changed";
  if (std::string v = first_write_outside("initial_state", *a.initial_state, before.of("initial_state"), state, why("initial_state"));
      !v.empty())
    return v;
  if (std::string v = first_write_outside("d_cache", *a.d_cache, before.of("d_cache"), d, why("d_cache")); !v.empty()) return v;
  if (std::string v = first_write_outside("k_cache", *a.k_cache, before.of("k_cache"), k, why("k_cache")); !v.empty()) return v;
  if (std::string v = first_write_outside("g_cache", *a.g_cache, before.of("g_cache"), g, why("g_cache")); !v.empty()) return v;
  return input_change(before, a);
}

}  // namespace kda::engine
