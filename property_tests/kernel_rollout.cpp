#include "property_tests/kernel_rollout.hpp"

#include <cstring>
#include <sstream>
#include <vector>

#include "contract/tensor_view.hpp"
#include "contract/validate.hpp"
#include "property_tests/kernel_row_plan.hpp"
#include "reference/replayssm_step.hpp"
#include "reference/tolerance.hpp"

namespace kda::testing {
namespace {

using reference::Comparison;

// Values of the 4-D tensor t at [i0, i1, i2, 0..n) (a "record" or a state row).
void append_record(std::vector<double>& to, const HostTensor& t, int64_t i0, int64_t i1, int64_t i2) {
  const int64_t n = t.shape()[3];
  for (int64_t e = 0; e < n; ++e) to.push_back(t.get({i0, i1, i2, e}));
}

struct Blocks {
  std::vector<double> ref, gpu;
  int64_t block = 1;
  void add(const HostTensor& r, const HostTensor& g, int64_t i0, int64_t i1, int64_t i2) {
    append_record(ref, r, i0, i1, i2);
    append_record(gpu, g, i0, i1, i2);
  }
  Comparison compare(double tol) const { return reference::compare(ref, gpu, block, tol); }
};

struct Bounds {
  double out, state, d, k, g;
};

Bounds bounds_for(const CaseConfig& c) {
  const auto rb = reference::kernel_vs_reference_bounds(c, /*tf32_products=*/false);
  const double u_ring = reference::unit_roundoff(c.ring_dtype);
  // Stored ring values: the same float32 value may round either way once the two sides
  // differ by float32 noise, so a record may differ by one unit of the ring dtype (2u).
  return {rb.output, rb.state, rb.output + 2 * u_ring, 2 * u_ring + 1e-5, 1e-5};
}

// Compares out and what the plans say the step wrote; with `all_records`, every checkpoint
// and ring record that the accepted rows still depend on instead (end of rollout).
void compare_step(CaseTensors& ref, CaseTensors& gpu, const Dims& dims, const std::vector<RowPlan>& plans,
                  const Bounds& b, bool all_records, KernelRolloutReport& r, const std::string& where) {
  Blocks state{{}, {}, dims.V * dims.K}, d{{}, {}, dims.V}, k{{}, {}, dims.K}, g{{}, {}, dims.K};
  const int64_t group = dims.HV / dims.H;
  for (const RowPlan& p : plans) {
    if (!p.accepted()) continue;
    for (int64_t hv = 0; hv < dims.HV; ++hv) {
      if (all_records || p.flush)
        for (int64_t v = 0; v < dims.V; ++v) state.add(ref.initial_state, gpu.initial_state, p.slot, hv, v);
      const int64_t lo = all_records ? 0 : p.cursor, hi = all_records ? p.cursor : (p.flush ? 0 : p.cursor + 1);
      for (int64_t j = lo; j < hi; ++j) {
        d.add(ref.d_cache, gpu.d_cache, p.slot, hv, j);
        g.add(ref.g_cache, gpu.g_cache, p.slot, hv, j);
        if (hv % group == 0) k.add(ref.k_cache, gpu.k_cache, p.slot, hv / group, j);
      }
    }
  }
  auto fold = [&where](Comparison& into, Comparison c) {
    if (!c.pass || c.worst_error > into.worst_error) c.where = where;
    into.merge(c);
  };
  if (!all_records) fold(r.out, reference::compare(ref.out, gpu.out, dims.V, b.out));
  fold(r.state, state.compare(b.state));
  fold(r.d_ring, d.compare(b.d));
  fold(r.k_ring, k.compare(b.k));
  fold(r.g_ring, g.compare(b.g));
}

std::string status_mismatch(const std::vector<RowPlan>& plans, const std::vector<int32_t>& got) {
  for (std::size_t row = 0; row < plans.size(); ++row)
    if (got.at(row) != plans[row].status)
      return "row " + std::to_string(row) + ": kernel status " + std::to_string(got[row]) + ", expected " +
             std::to_string(plans[row].status);
  return "";
}

// Copies the bytes (the tensor keeps its storage, so device mirrors keyed by it stay valid).
void copy_bytes(HostTensor& to, const HostTensor& from) {
  std::memcpy(to.storage().data(), from.storage().data(), from.storage().size());
}

// The reference's view of an adversarial step: every row the plan rejects becomes padding.
void copy_indices_as_reference_sees(const CaseTensors& gpu, CaseTensors& ref, const std::vector<RowPlan>& plans) {
  copy_bytes(ref.ssm_state_indices, gpu.ssm_state_indices);
  copy_bytes(ref.write_pos, gpu.write_pos);
  for (std::size_t row = 0; row < plans.size(); ++row)
    if (plans[row].status != 0) ref.ssm_state_indices.set_linear(static_cast<int64_t>(row), -1);
}

}  // namespace

bool KernelRolloutReport::pass() const {
  return failure.empty() && out.pass && state.pass && d_ring.pass && k_ring.pass && g_ring.pass;
}

std::string KernelRolloutReport::summary() const {
  std::ostringstream s;
  s << to_string(config) << "\n  tokens " << tokens << ", flushes " << flushes << ", appends " << appends
    << ", rejected rows " << rejected_rows << "\n  out:   " << out.describe() << "\n  state: " << state.describe()
    << "\n  d:     " << d_ring.describe() << "\n  k:     " << k_ring.describe() << "\n  g:     " << g_ring.describe();
  if (!failure.empty()) s << "\n  FAILURE: " << failure;
  return s.str();
}

KernelRolloutReport run_kernel_vs_reference(const CaseConfig& config, DeviceMirror& mirror, const StepMutator& mutate) {
  KernelRolloutReport r;
  r.config = config;
  CaseTensors ref = materialize(config);
  CaseTensors gpu = materialize(config);
  const Bounds b = bounds_for(config);
  std::vector<RowPlan> plans;
  Dims dims;
  for (int64_t t = 0; t < config.steps; ++t) {
    if (t > 0) {
      fill_token(ref, t);
      fill_token(gpu, t);
    }
    // A mutation lasts one step: afterwards the caller's own indices and cursors return.
    const HostTensor indices = gpu.ssm_state_indices, cursors = gpu.write_pos;
    if (mutate) mutate(gpu, t);
    dims = validate(gpu.args(), Backend::Cpu);
    plans = plan_rows(gpu.args(), dims);
    copy_indices_as_reference_sees(gpu, ref, plans);
    const WrittenBytes before = snapshot_written(gpu.args());

    mirror.step(gpu.args());
    reference::replayssm_step(ref.args(), reference::Rounding::Kernel);
    ++r.tokens;
    const std::string where = "token " + std::to_string(t);
    if (r.failure.empty()) {
      if (std::string m = status_mismatch(plans, mirror.row_status()); !m.empty()) r.failure = where + ": " + m;
      else if (std::string f = footprint_violation(before, gpu.args(), dims, plans); !f.empty()) r.failure = where + ": " + f;
      else if (!mirror.guards_intact()) r.failure = where + ": a device guard region changed";
    }
    compare_step(ref, gpu, dims, plans, b, false, r, where);
    for (const RowPlan& p : plans) {
      if (!p.accepted()) r.rejected_rows += p.status != 1;
      else p.flush ? ++r.flushes : ++r.appends;
    }
    if (!r.pass()) return r;
    copy_bytes(gpu.ssm_state_indices, indices);
    copy_bytes(gpu.write_pos, cursors);
    advance_cursors(ref);
    advance_cursors(gpu);
    for (std::size_t row = 0; row < plans.size(); ++row)  // a rejected row did nothing: keep its cursor
      if (plans[row].status != 0) gpu.write_pos.set_linear(row, cursors.get_linear(row));
    for (std::size_t row = 0; row < plans.size(); ++row)  // plans use the advanced cursors
      plans[row].cursor = static_cast<int64_t>(gpu.write_pos.get_linear(static_cast<int64_t>(row)));
  }
  compare_step(ref, gpu, dims, plans, b, true, r, "end of rollout");
  return r;
}

}  // namespace kda::testing
