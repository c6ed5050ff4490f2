#include "golden/golden_verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>

#include "contract/error_catalog.hpp"
#include "contract/metadata_json.hpp"
#include "contract/validate.hpp"
#include "engine/element_note.hpp"
#include "engine/refusal.hpp"
#include "engine/row_plan.hpp"
#include "golden/call_tensors.hpp"
#include "golden/verify_blocks.hpp"
#include "reference/tolerance.hpp"

namespace kda::golden {
namespace {

using reference::Comparison;
using Key = std::array<int64_t, 3>;  // (slot, head, record) or (slot, hv, -1) for a checkpoint

// A CaseConfig carrying what the tolerance model reads (sizes, dtypes, steps), from the
// tensors themselves so that a user's dump without kda.config gets the same bounds.
CaseConfig bounds_config(const GoldenCase& c, StepTensors& call, const Dims& d) {
  CaseConfig b;
  b.B = d.B; b.H = d.H; b.HV = d.HV; b.K = d.K; b.V = d.V; b.L = d.L; b.slots = d.slots;
  b.act_dtype = call.mixed_qkv.type();
  b.state_dtype = call.initial_state.type();
  const ScalarType dr = call.d_cache.type(), kr = call.k_cache.type();
  b.ring_dtype = reference::unit_roundoff(dr) >= reference::unit_roundoff(kr) ? dr : kr;
  b.out_dtype = call.out.type();
  b.steps = c.steps;
  return b;
}

// Tolerances. A file's expected results come from the reference, so the backend is judged
// by the bound between two computations that are each within the rollout bounds of the
// float64 recurrence (kernel_vs_reference_bounds); a file without them is judged against the
// float64 model itself (rollout_bounds). Ring records as the kernel suite bounds them
// (reference::record_bounds, record_floor).
VerifyBounds bounds_for(const CaseConfig& bc, bool model_mode, engine::Profile p) {
  engine::ProfileBounds b = engine::bounds_vs_reference(bc, p);
  if (model_mode) b.step = engine::bounds_vs_truth(bc, p);
  return {b, bc.ring_dtype};
}

// What a backend that reports per-row status or guard regions must show after a step.
void check_backend_state(engine::Backend& backend, const StepArgs& args, const Dims& d, int64_t step) {
  if (const auto status = backend.row_status()) {
    const auto plans = engine::plan_rows(args, d);
    for (std::size_t row = 0; row < plans.size(); ++row)
      if (status->at(row) != plans[row].status)
        throw std::runtime_error(
            fmt::format("step {} row {}: backend status {}, expected {}", step, row, status->at(row), plans[row].status));
  }
  if (!backend.guards_intact()) throw std::runtime_error(fmt::format("step {}: a device guard region changed", step));
}

// Folds one block comparison into a report slot, labelled; a failing block's label also
// gets `note()` (its worst element), when given.
void fold(Comparison& into, const std::vector<double>& e, const std::vector<double>& a, double tol, double floor,
          const std::string& where, const std::function<std::string()>& note = {}) {
  Comparison c = reference::compare(e, a, static_cast<int64_t>(e.size()), tol, {&floor, 1});
  c.where = where;
  if (!c.pass && note)
    if (const std::string n = note(); !n.empty()) c.where += "; " + n;
  into.merge(c);
}

void verify_error(const GoldenCase& c, engine::Backend& backend, CaseVerification& r) {
  StepTensors call = load_call(c);
  if (!c.call_json.empty() && call_metadata_json(backend.op().bind(call.args())).dump() != c.call_json)
    r.failure = "kda.call does not describe the case's tensors";
  std::vector<std::vector<std::byte>> before;
  for (auto& [name, t] : written_tensors(call)) before.push_back(t->storage());
  const engine::WrittenBytes written_before = engine::snapshot_written(call.args());
  try {
    backend.step(backend.op().bind(call.args()));
    r.failure = fmt::format("accepted a call that must raise {}", c.expected_id);
    return;
  } catch (const ContractError& e) {
    r.error_seen = e.id() + ": " + e.what();
    if (e.id() != c.expected_id || e.what() != c.expected_message)
      r.failure = fmt::format("raised {} \"{}\", expected {} \"{}\"", e.id(), e.what(), c.expected_id, c.expected_message);
    const auto ids = catalog_ids_matching(e.what());
    if (std::find(ids.begin(), ids.end(), c.expected_id) == ids.end() && r.failure.empty())
      r.failure = "the message matches no catalog entry of id " + c.expected_id;
  }
  std::size_t i = 0;
  for (auto& [name, t] : written_tensors(call)) {
    const auto& b = before[i++];
    for (std::size_t j = 0; j < b.size(); ++j) r.untouched_changed += b[j] != t->storage()[j];
  }
  if (r.untouched_changed && r.failure.empty())
    r.failure = fmt::format("step 0: raised {}, but changed {}", r.error_seen, engine::any_change(written_before, call.args()));
}

}  // namespace

bool CaseVerification::pass() const {
  return failure.empty() && untouched_changed == 0 && gap_bytes_changed == 0 && out.pass && state.pass &&
         d_ring.pass && k_ring.pass && g_ring.pass;
}

const Comparison* CaseVerification::worst() const {
  const Comparison* w = nullptr;
  for (const Comparison* c : {&out, &state, &d_ring, &k_ring, &g_ring}) {
    if (c->blocks == 0) continue;
    if (!w || std::isnan(c->ratio()) || c->ratio() > w->ratio()) w = c;
  }
  return w;
}

double CaseVerification::worst_ratio() const {
  const Comparison* w = worst();
  return w ? w->ratio() : 0.0;
}

std::string CaseVerification::headline() const {
  if (!failure.empty()) return name + ": " + failure;
  const std::pair<const char*, const Comparison*> quantities[] = {
      {"out", &out}, {"initial_state", &state}, {"d_cache", &d_ring}, {"k_cache", &k_ring}, {"g_cache", &g_ring}};
  const Comparison* w = worst();
  for (const auto& [tensor, c] : quantities)
    if (c == w && !c->pass) return fmt::format("{}: {}: {}", name, tensor, c->describe());
  for (const auto& [tensor, c] : quantities)
    if (!c->pass) return fmt::format("{}: {}: {}", name, tensor, c->describe());
  if (untouched_changed) return fmt::format("{}: {} elements that no step may write changed", name, untouched_changed);
  if (gap_bytes_changed) return fmt::format("{}: {} bytes between strided elements changed", name, gap_bytes_changed);
  return "";
}

std::string CaseVerification::summary() const {
  std::string s = fmt::format("{} on {}: {}", name, backend, pass() ? "pass" : "FAIL");
  if (kind == CaseKind::Error) {
    s += fmt::format("\n  raised: {}", error_seen.empty() ? "(nothing)" : error_seen);
    if (untouched_changed) s += fmt::format("\n  {} bytes of written tensors changed", untouched_changed);
  } else if (!outside_envelope.empty()) {
    s += fmt::format("\n  outside the backend's envelope ({}): {}", outside_envelope,
                     failure.empty() ? "refused, nothing written" : "NOT refused cleanly");
  } else {
    if (against_model) s += "\n  (no expected results in the file: compared with the float64 ReplaySSM model)";
    s += fmt::format("\n  out:   {}\n  state: {}\n  d:     {}\n  k:     {}\n  g:     {}", out.describe(),
                     state.describe(), d_ring.describe(), k_ring.describe(), g_ring.describe());
    s += fmt::format("\n  tensors reproduced bit for bit: {}/{}; untouched elements changed: {}; gap bytes changed: {}",
                     tensors_bit_exact, tensors_compared, untouched_changed, gap_bytes_changed);
  }
  if (!failure.empty()) s += "\n  FAILURE: " + failure;
  return s;
}

CaseVerification verify_case(const GoldenCase& c, engine::Backend& backend) {
  CaseVerification r;
  r.name = c.name;
  r.backend = backend.name();
  r.kind = c.kind;
  if (c.op != backend.op().name) {
    r.failure = fmt::format("a case of {}, but the backend implements {}", c.op, backend.op().name);
    return r;
  }
  try {
    if (c.kind == CaseKind::Error) {
      verify_error(c, backend, r);
      return r;
    }
    // A step case outside the backend's envelope must be refused cleanly, never computed.
    if (c.config) {
      if (const std::string outside = backend.envelope().excludes(*c.config); !outside.empty()) {
        StepTensors call = load_call(c);
        r.outside_envelope = outside;
        if (const std::string why = engine::refusal_problem(backend, call.args()); !why.empty())
          r.failure = "outside the backend's envelope (" + outside + "): " + why;
        return r;
      }
    }
    StepTensors call = load_call(c);
    // The case's operator decides what is valid (the plain packed decode takes a row-padded
    // `a` that ReplaySSM refuses); the stored call's d_cache gives the ring length (L = 1 there).
    Dims d = backend.op().validate(backend.op().bind(call.args()), Backend::Cpu);
    d.L = call.d_cache.shape()[2];
    const bool model_mode = !c.has_expected();
    r.against_model = model_mode;
    const VerifyBounds b = bounds_for(bounds_config(c, call, d), model_mode, backend.profile());
    ModelTracker model(call.args(), d);
    std::map<Key, Judge> written_state, written_d, written_k, written_g;
    std::vector<GapWatch> gaps;
    for (auto& [name, t] : written_tensors(call)) gaps.emplace_back(*t);
    const int64_t group = d.HV / d.H;
    for (int64_t t = 0; t < c.steps; ++t) {
      if (t > 0) load_step_inputs(c, t, call);
      const StepExpectation x = model.step(call.args());
      for (auto& g : gaps) g.snapshot();
      const engine::WrittenBytes before = engine::snapshot_written(call.args());
      backend.step(backend.op().bind(call.args()));
      check_backend_state(backend, call.args(), d, t);
      if (r.failure.empty())
        if (const std::string f = engine::footprint_violation(before, call.args(), d, engine::plan_rows(call.args(), d));
            !f.empty())
          r.failure = fmt::format("step {}: {}", t, f);
      for (auto& g : gaps) r.gap_bytes_changed += g.changed();
      const HostTensor* file_out = model_mode ? nullptr : &c.at(step_name(c, t, "expected.out"));
      if (file_out) {
        ++r.tensors_compared;
        r.tensors_bit_exact += same_elements(*file_out, call.out);
      }
      for (int64_t row = 0; row < d.B; ++row) {
        const RowStep& rs = x.rows[row];
        for (int64_t hv = 0; hv < d.HV; ++hv) {
          const std::string where = fmt::format("step {} row {} slot {} hv {}", t, row, rs.slot, hv);
          const auto actual = out_head(call.out, row, hv);
          const auto expected = file_out ? out_head(*file_out, row, hv) : x.model_out(row, hv, d.V);
          const auto note = [&] {
            return file_out ? engine::worst_element(*file_out, call.out, &before.out, row, 0, hv) : std::string();
          };
          if (rs.slot < 0) {  // padding: exact zeros (floor 0)
            fold(r.out, expected, actual, b.out(0), 0.0, where + " (padding: expected zeros)", note);
            continue;
          }
          const HeadStep& h = rs.heads[hv];
          fold(r.out, expected, actual, b.out(h.mass), h.out_floor, where, note);
          if (rs.flush) {
            written_state[{rs.slot, hv, -1}] = {h.state_floor, b.state(h.mass), fmt::format("step {} row {}", t, row)};
            // The checkpoint just written: the stored per-step one (the final tensor covers the last step).
            std::vector<double> e;
            if (model_mode) e = h.state_after;
            else if (t + 1 < c.steps) e = checkpoint_values(c.at(checkpoint_name(c, t, rs.slot)), hv);
            if (!e.empty())
              fold(r.state, e, state_block(call.initial_state, rs.slot, hv), b.state(h.mass), h.state_floor,
                   where + " (flush)");
          } else {
            const reference::RecordBounds rec = b.records(h.mass);
            const std::string who = fmt::format("step {} row {}", t, row);
            written_d[{rs.slot, hv, rs.cursor}] = {h.d_floor, rec.d, who};
            written_g[{rs.slot, hv, rs.cursor}] = {reference::record_floor(d.K, ScalarType::Float32), rec.g, who};
            if (hv % group == 0)
              written_k[{rs.slot, hv / group, rs.cursor}] = {reference::record_floor(d.K, b.ring_dtype), rec.k, who};
          }
        }
      }
    }
    // The end state: written blocks within tolerance, everything else bit for bit.
    FinalCheck fin{c, model_mode, r};
    fin.state(call.initial_state, written_state, d);
    fin.ring("d_cache", call.d_cache, written_d, r.d_ring);
    fin.ring("k_cache", call.k_cache, written_k, r.k_ring);
    fin.ring("g_cache", call.g_cache, written_g, r.g_ring);
  } catch (const ContractError& e) {
    r.failure = fmt::format("the backend rejected a valid case: {} {}", e.id(), e.what());
  } catch (const std::exception& e) {
    r.failure = e.what();
  }
  return r;
}

}  // namespace kda::golden
