#include "golden/golden_verify.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>

#include "contract/error_catalog.hpp"
#include "contract/metadata_json.hpp"
#include "engine/description/row_plan.hpp"
#include "engine/driver/case_driver.hpp"
#include "engine/driver/run_case.hpp"
#include "engine/oracles/refusal.hpp"
#include "engine/reports/element_note.hpp"
#include "golden/call_tensors.hpp"
#include "golden/golden_generate.hpp"
#include "golden/verify_blocks.hpp"
#include "operators/replayssm_family/replayssm_driver.hpp"
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

// Why a backend may refuse an error case with any message ("" when it must raise the exact
// one): the call lies outside its declared envelope (a refusal is all it owes there), or only a
// harness extension refuses it (no real wrapper raises the harness's own text).
std::string any_message_reason(const GoldenCase& c, const engine::Backend& backend) {
  if (c.config)
    if (const std::string outside = backend.envelope().excludes(*c.config); !outside.empty())
      return "outside the backend's envelope: " + outside;
  const CatalogEntry* entry = find_catalog_entry(c.expected_id);
  if (entry != nullptr && entry->is_extension()) return "only the harness's extension " + c.expected_id + " refuses it";
  return "";
}

void verify_error(const GoldenCase& c, engine::Backend& backend, engine::CaseReport& r) {
  StepTensors call = load_call(c);
  if (!c.call_json.empty() && call_metadata_json(backend.op().bind(call.args())).dump() != c.call_json)
    r.failure = "kda.call does not describe the case's tensors";
  const engine::WrittenBytes before = engine::snapshot_written(call.args());
  const std::string any_message = any_message_reason(c, backend);
  try {
    backend.step(backend.op().bind(call.args()));
    r.failure = any_message.empty() ? fmt::format("accepted a call that must raise {}", c.expected_id)
                                    : fmt::format("accepted a call it must refuse ({})", any_message);
    return;
  } catch (const ContractError& e) {
    r.error_seen = e.id() + ": " + e.what();
    if (any_message.empty()) {
      if (e.id() != c.expected_id || e.what() != c.expected_message)
        r.failure = fmt::format("raised {} \"{}\", expected {} \"{}\"", e.id(), e.what(), c.expected_id, c.expected_message);
      const auto ids = catalog_ids_matching(e.what());
      if (std::find(ids.begin(), ids.end(), c.expected_id) == ids.end() && r.failure.empty())
        r.failure = "the message matches no catalog entry of id " + c.expected_id;
    }
  } catch (const engine::BackendRefusal& e) {  // refused, but not with a contract message
    r.error_seen = e.what();
    if (any_message.empty())
      r.failure = fmt::format("refused with a message that is no catalog entry; expected {} \"{}\"", c.expected_id,
                              c.expected_message);
  }
  if (!any_message.empty()) r.note = fmt::format("refused with '{}' (any message: {})", r.error_seen, any_message);
  if (const std::string changed = engine::any_change(before, call.args()); !changed.empty())
    r.failure = fmt::format("step 0: raised {}, but changed {}{}", r.error_seen, changed,
                            r.failure.empty() ? "" : "; and " + r.failure);
}

// [HV, V, K]: the shape of one slot's checkpoint (a state tensor without its slot dimension).
std::vector<int64_t> slot_shape(const HostTensor& state) { return {state.shape().begin() + 1, state.shape().end()}; }

// The call of step t as the float64 model reads it (ModelTracker: every slot's state and
// rings, and each row's records up to its cursor), checked before anything reads it: only
// the backend's step validates a call, after the model has read it, and a backend need not
// validate at all. The dims come from the operator's contract on the call (its tensors'
// shapes); the model's view of it (its ReplaySSM driver's as_kda_call, else the call itself,
// whose rings the plain packed decode does not validate) must have the state, rings and index
// tensors of those dims, and index values that name a slot (or padding) and a record of the
// ring (contract/runtime_values.cpp). A file that breaks any of this is no valid case.
Dims checked_file_call(const engine::OperatorDescription& op, StepTensors& call, int64_t t) {
  const auto invalid = [t](const std::string& why) {
    return SafetensorsError(fmt::format("golden case: step {} is no valid call: {}", t, why));
  };
  if (call.d_cache.shape().size() != 4) throw invalid("d_cache is not 4-D");
  Dims d = engine::case_dims(op, call);
  std::vector<HostTensor> storage;
  const engine::KdaCallView as_kda = engine::replayssm_driver_of(op).as_kda_call;
  const StepArgs view = as_kda ? as_kda(call.args(), d, storage) : call.args();
  const auto require = [&](std::string_view name, const DLTensor* x, const std::vector<int64_t>& shape) {
    if (x == nullptr) return;
    const std::vector<int64_t> has(x->shape, x->shape + x->ndim);
    if (has != shape)
      throw invalid(fmt::format("{} has shape [{}], the call's dims need [{}]", name, fmt::join(has, ", "),
                                fmt::join(shape, ", ")));
  };
  require("initial_state", view.initial_state, {d.slots, d.HV, d.V, d.K});
  require("d_cache", view.d_cache, {d.slots, d.HV, d.L, d.V});
  require("k_cache", view.k_cache, {d.slots, d.H, d.L, d.K});
  require("g_cache", view.g_cache, {d.slots, d.HV, d.L, d.K});
  for (const auto& [name, x] : {std::pair{"ssm_state_indices", view.ssm_state_indices},
                                std::pair{"write_pos", view.write_pos}, std::pair{"force_flush", view.force_flush}}) {
    require(name, x, {d.B});
    if (x != nullptr && x->dtype.code != kDLInt) throw invalid(fmt::format("{} is not an integer tensor", name));
  }
  try {
    check_runtime_values(view, d);
  } catch (const ContractError& e) {
    throw invalid(fmt::format("{} {}", e.id(), e.what()));
  }
  return d;
}

// The file's expected tensors as the driver's oracle (or, for a file without them, the
// float64 ReplaySSM model run alongside).
class ExpectedOracle final : public engine::Oracle {
 public:
  ExpectedOracle(const GoldenCase& c, StepTensors& call, const Dims& d, bool model_mode, const VerifyBounds& b,
                 engine::KdaCallView as_kda)
      : c_(c),
        d_(d),
        model_mode_(model_mode),
        b_(b),
        model_(call.args(), d, as_kda),
        gates_per_record_(call.g_cache.shape().size() == 3 ? 1 : d.K) {}

  void before_step(const engine::StepView&) override {}

  // The float64 model advances by the steps the backend computed; it reads the token's
  // inputs only, which no step may write (the driver's footprint check).
  void judge_step(const engine::StepView& v, engine::CaseReport& r) override {
    x_ = model_.step(v.tensors.args());
    const int64_t t = v.token;
    StepTensors& call = v.tensors;
    const HostTensor* file_out =
        model_mode_ ? nullptr : &c_.at(step_name(c_, t, "expected.out"), call.out.type(), call.out.shape());
    if (file_out) {
      ++r.tensors_compared;
      r.tensors_bit_exact += same_elements(*file_out, call.out);
    }
    const int64_t group = d_.HV / d_.H;
    for (int64_t row = 0; row < d_.B; ++row) {
      const RowStep& rs = x_.rows[row];
      for (int64_t hv = 0; hv < d_.HV; ++hv) {
        const std::string where = fmt::format("step {} row {} slot {} hv {}", t, row, rs.slot, hv);
        const auto actual = out_head(call.out, row, hv);
        const auto expected = file_out ? out_head(*file_out, row, hv) : x_.model_out(row, hv, d_.V);
        const auto note = [&] {
          return file_out ? engine::worst_element(*file_out, call.out, &v.before.of("out"), row, 0, hv) : std::string();
        };
        if (rs.slot < 0) {  // padding: exact zeros (floor 0)
          fold(r.out, expected, actual, b_.out(0), 0.0, where + " (padding: expected zeros)", note);
          continue;
        }
        const HeadStep& h = rs.heads[hv];
        r.max_gate_mass = std::max(r.max_gate_mass, h.mass);
        fold(r.out, expected, actual, b_.out(h.mass), h.out_floor, where, note);
        if (rs.checkpoint()) {
          written_state_[{rs.slot, hv, -1}] = {h.state_floor, b_.state(h.mass), fmt::format("step {} row {}", t, row)};
          // The checkpoint just written: the stored per-step one (the final tensor covers the last step).
          std::vector<double> e;
          if (model_mode_) e = h.state_after;
          else if (t + 1 < c_.steps)
            e = checkpoint_values(
                c_.at(checkpoint_name(c_, t, rs.slot), call.initial_state.type(), slot_shape(call.initial_state)), hv);
          if (!e.empty())
            fold(r.state, e, state_block(call.initial_state, rs.slot, hv), b_.state(h.mass), h.state_floor,
                 where + (rs.history ? " (history checkpoint)" : " (flush)"));
        }
        if (!rs.flush) {
          const reference::RecordBounds rec = b_.records(h.mass);
          const std::string who = fmt::format("step {} row {}", t, row);
          written_d_[{rs.slot, hv, rs.record}] = {h.d_floor, rec.d, who};
          written_g_[{rs.slot, hv, rs.record}] = {reference::record_floor(gates_per_record_, ScalarType::Float32), rec.g,
                                                  who};
          if (hv % group == 0)
            written_k_[{rs.slot, hv / group, rs.record}] = {reference::record_floor(d_.K, b_.ring_dtype), rec.k, who};
        }
      }
    }
  }

  // The end state: written blocks within tolerance, everything else bit for bit.
  void finish(const engine::StepView& v, engine::CaseReport& r) override {
    FinalCheck fin{c_, model_mode_, r};
    fin.state(v.tensors.initial_state, written_state_, d_);
    fin.ring("d_cache", v.tensors.d_cache, written_d_, r.d_ring);
    fin.ring("k_cache", v.tensors.k_cache, written_k_, r.k_ring);
    fin.ring("g_cache", v.tensors.g_cache, written_g_, r.g_ring);
  }

 private:
  const GoldenCase& c_;
  Dims d_;
  bool model_mode_;
  VerifyBounds b_;
  ModelTracker model_;
  int64_t gates_per_record_;  // K, or 1 for an operator with one scalar gate per record
  StepExpectation x_;
  std::map<Key, Judge> written_state_, written_d_, written_k_, written_g_;
};

// A case of an operator whose files hold each step's out and the written tensors at the end
// (CaseDriver::golden_rings false): the driver's oracle judges the backend (its CPU reference
// in lockstep, from the state the backend stored, within the profile's bounds; the float64
// recurrence for a file without expected tensors), and each step's out and the written
// tensors at the end are compared with the file's for the CPU reference's bit-for-bit
// reproduction.
class DriverFileOracle final : public engine::Oracle {
 public:
  DriverFileOracle(const GoldenCase& c, std::unique_ptr<engine::Oracle> judge) : c_(c), judge_(std::move(judge)) {}

  void before_step(const engine::StepView& v) override { judge_->before_step(v); }
  void judge_step(const engine::StepView& v, engine::CaseReport& r) override {
    judge_->judge_step(v, r);
    if (!c_.has_expected()) return;
    const HostTensor& out = v.tensors.out;
    ++r.tensors_compared;
    r.tensors_bit_exact += same_elements(c_.at(step_name(c_, v.token, "expected.out"), out.type(), out.shape()), out);
  }
  void finish(const engine::StepView& v, engine::CaseReport& r) override {
    judge_->finish(v, r);
    if (!c_.has_expected()) return;
    for (const auto& [name, tensor] : written_tensors(v.tensors)) {
      if (name == "out" || !c_.has("expected." + name)) continue;  // out: judged per step
      ++r.tensors_compared;
      r.tensors_bit_exact += same_elements(c_.at("expected." + name, tensor->type(), tensor->shape()), *tensor);
    }
  }

 private:
  const GoldenCase& c_;
  std::unique_ptr<engine::Oracle> judge_;
};

void verify_driver_case(const GoldenCase& c, engine::Backend& backend, StepTensors& call, engine::CaseReport& r) {
  const engine::OperatorDescription& op = backend.op();
  if (!c.config)
    throw SafetensorsError("golden case: a case of " + std::string(op.name) + " needs kda.config (its oracle's bounds)");
  CaseTensors m;
  static_cast<StepTensors&>(m) = call;
  m.config = *c.config;
  const bool directed = backend.rounds_directed();
  const engine::CaseDriver& driver = engine::driver_of(op);
  DriverFileOracle oracle(c, c.has_expected() ? driver.reference_oracle(m, op, backend.profile(), directed)
                                              : driver.truth_oracle(m, op, backend.profile(), directed));
  const auto load = [&](int64_t t) { load_step_inputs(c, t, call); };
  engine::run_case({call, c.steps, load, false, nullptr}, backend, oracle, r);
}

// A case whose files hold its checkpoints and ring records (the ReplaySSM family's): the
// file's expected tensors (or the float64 model) as the
// driver's oracle (ExpectedOracle), each step's call checked first.
void verify_replayssm_case(const GoldenCase& c, engine::Backend& backend, StepTensors& call, engine::CaseReport& r) {
  const Dims d = checked_file_call(backend.op(), call, 0);
  const bool model_mode = !c.has_expected();
  const CaseConfig bc = bounds_config(c, call, d);
  if (!c.config) r.config = bc;
  ExpectedOracle oracle(c, call, d, model_mode, bounds_for(bc, model_mode, backend.profile()),
                        engine::replayssm_driver_of(backend.op()).as_kda_call);
  const auto load = [&](int64_t t) {
    load_step_inputs(c, t, call);
    checked_file_call(backend.op(), call, t);
  };
  engine::run_case({call, c.steps, load, false, nullptr}, backend, oracle, r);
}

}  // namespace

engine::CaseReport verify_case(const GoldenCase& c, engine::Backend& backend) {
  engine::CaseReport r;
  r.name = c.name;
  r.backend = backend.name();
  r.backend_spec = backend.spec();
  r.op = std::string(backend.op().name);
  r.against = c.kind == CaseKind::Error ? "error" : c.has_expected() ? "expected" : "model";
  if (c.config) r.config = *c.config;
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
    // The file's own description of its call, for the operator it names: a file relabelled
    // with another operator (or with tensors changed under it) does not match.
    if (!c.call_json.empty() && call_metadata_json(backend.op().bind(call.args())).dump() != c.call_json) {
      r.failure = fmt::format("kda.call does not describe the case's tensors as a call of {}", backend.op().name);
      return r;
    }
    if (engine::driver_of(backend.op()).golden_rings) verify_replayssm_case(c, backend, call, r);
    else verify_driver_case(c, backend, call, r);
    const bool model_mode = !c.has_expected();
    // The harness's files hold what the CPU reference computed: it must reproduce them bit for
    // bit, not merely within the tolerance a kernel gets.
    if (!model_mode && backend.spec() == "reference" && c.generator == kGeneratorTag && r.failure.empty() &&
        r.tensors_bit_exact != r.tensors_compared)
      r.failure = fmt::format("the CPU reference must reproduce a file it generated bit for bit: {} of {} compared "
                              "tensors differ",
                              r.tensors_compared - r.tensors_bit_exact, r.tensors_compared);
  } catch (const ContractError& e) {
    r.failure = fmt::format("the backend rejected a valid case: {} {}", e.id(), e.what());
  } catch (const std::exception& e) {
    r.failure = e.what();
  }
  return r;
}

}  // namespace kda::golden
