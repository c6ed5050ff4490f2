#include "golden/golden_generate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "cases/row_padding.hpp"
#include "contract/metadata_json.hpp"
#include "contract/validate.hpp"
#include "engine/description/case_breaking.hpp"
#include "engine/description/operator.hpp"
#include "engine/driver/case_driver.hpp"
#include "golden/call_tensors.hpp"
#include "operators/replayssm_family/case_tensors.hpp"
#include "operators/replayssm_family/golden_features.hpp"
#include "reference/rounding.hpp"

namespace kda::golden {
namespace {

// The materialized case with the spec's layout applied (later tokens are written into it
// through its strides).
CaseTensors materialize_spec(const GoldenSpec& spec) {
  CaseTensors t = engine::materialize_case(engine::find_operator(spec.op), spec.config);
  if (spec.a_row_padded) t.a = row_padded(t.a);
  return t;
}

void check_features(const GoldenSpec& spec, const std::set<Feature>& seen) {
  for (Feature f : spec.features)
    if (!seen.count(f))
      throw GenerationError(fmt::format("{}: claims row pattern {} but its rollout has none ({})", spec.name,
                                        feature_name(f), to_string(spec.config)));
}

GoldenCase header_of(const GoldenSpec& spec, CaseTensors& t) {
  GoldenCase c;
  c.name = spec.name;
  c.purpose = spec.purpose;
  c.config = spec.config;
  c.steps = spec.config.steps;
  c.scale = t.scale;
  c.l2norm = spec.config.l2norm;
  c.lower_bound = spec.config.lower_bound;
  c.circular_replay = t.circular_replay;
  c.prefix_gate_cache = t.prefix_gate_cache;
  c.predecayed_k_cache = t.predecayed_k_cache;
  c.use_gate_in_kernel = t.use_gate_in_kernel;
  c.use_beta_sigmoid_in_kernel = t.use_beta_sigmoid_in_kernel;
  c.allow_neg_eigval = t.allow_neg_eigval;
  c.state_v_first = t.state_v_first;
  c.generator = kGeneratorTag;
  c.op = spec.op;
  const engine::OperatorDescription& op = engine::find_operator(spec.op);
  c.call_json = call_metadata_json(op.bind(t.args())).dump();
  return c;
}

// The tensors the case's call holds: every one of the ReplaySSM family's materialization (the
// plain packed decode's files hold the ReplaySSM call at L = 1); an operator whose files hold
// no rings only its own arguments (it leaves the others empty).
std::vector<std::pair<std::string_view, HostTensor*>> call_tensors(const GoldenCase& c, CaseTensors& t) {
  const engine::OperatorDescription& op = engine::find_operator(c.op);
  std::vector<std::pair<std::string_view, HostTensor*>> held = held_tensors(t);
  if (!engine::driver_of(op).golden_rings) std::erase_if(held, [&](const auto& h) { return !engine::takes(op, h.first); });
  return held;
}

// Every input but the per-step ones, as it is before step 0.
void store_invariant_inputs(GoldenCase& c, CaseTensors& t) {
  for (const auto& [name, tensor] : call_tensors(c, t))
    if (!per_step_input(name)) c.tensors.emplace(std::string(name), *tensor);
}

void store_step_inputs(GoldenCase& c, CaseTensors& t, int64_t step) {
  for (const auto& [name, tensor] : call_tensors(c, t))
    if (per_step_input(name)) c.tensors.emplace(step_name(c, step, std::string(name)), *tensor);
}

// The tensors as the last step leaves them: every one a step writes but out (stored per step).
void store_final(GoldenCase& c, CaseTensors& t) {
  const auto held = call_tensors(c, t);
  for (const auto& [name, tensor] : written_tensors(t)) {
    const auto& written = name;  // clang before 16 cannot capture a structured binding in a lambda
    if (written != "out" && std::any_of(held.begin(), held.end(), [&](const auto& h) { return h.first == written; }))
      c.tensors.emplace("expected." + written, *tensor);
  }
}

// The checkpoint [HV, V, K] of one slot, compact.
HostTensor checkpoint_of(const HostTensor& state, int64_t slot) {
  const auto& s = state.shape();
  HostTensor out(state.type(), {s[1], s[2], s[3]});
  for (int64_t hv = 0; hv < s[1]; ++hv)
    for (int64_t v = 0; v < s[2]; ++v)
      for (int64_t k = 0; k < s[3]; ++k) out.set({hv, v, k}, state.get({slot, hv, v, k}));
  return out;
}

// Breaks the valid call of the spec's config with its error input (tensors it changed are
// rebuilt, 0xFF bytes) and returns what the call must raise.
engine::Expected break_call(const GoldenSpec& spec, CaseTensors& t) {
  const engine::OperatorDescription& op = engine::find_operator(spec.op);
  const engine::Mutation m{engine::error_input_index(op.error_inputs(), spec.error_input), spec.error_variant};
  const std::optional<engine::Expected> expected = engine::break_case(op, t, m);
  if (!expected) throw GenerationError(spec.name + ": the error input does not apply to this config");
  return *expected;
}

GoldenCase generate_error(const GoldenSpec& spec) {
  CaseTensors t = materialize_spec(spec);
  const engine::Expected expected = break_call(spec, t);
  GoldenCase c = header_of(spec, t);
  c.kind = CaseKind::Error;
  c.expected_id = expected.id;
  c.expected_message = expected.message;
  store_invariant_inputs(c, t);
  store_step_inputs(c, t, 0);
  // The stated error must be what the reference raises, before it writes anything.
  try {
    const engine::OperatorDescription& op = engine::find_operator(spec.op);
    op.reference_step(op.bind(t.args()), reference::Rounding::Kernel);
  } catch (const ContractError& e) {
    if (e.id() != expected.id || e.what() != expected.message)
      throw GenerationError(fmt::format("{}: expected {} \"{}\", the reference raised {} \"{}\"", spec.name,
                                        expected.id, expected.message, e.id(), e.what()));
    return c;
  }
  throw GenerationError(spec.name + ": the broken call was accepted by the reference");
}

// A case of an operator whose files hold no rings (engine/driver/case_driver.hpp's golden_rings):
// its steps' inputs, each step's out and the written tensors at the end; no rings, so no
// checkpoints or row patterns.
GoldenCase generate_driver_case(const GoldenSpec& spec, const engine::OperatorDescription& op) {
  if (!spec.features.empty() || !spec.forced.empty() || spec.a_row_padded)
    throw GenerationError(spec.name + ": row patterns, scripted flushes and row-padded `a` are the ReplaySSM family's");
  CaseTensors t = materialize_spec(spec);
  const HostTensor out_buffer = t.out;
  GoldenCase c = header_of(spec, t);
  store_invariant_inputs(c, t);
  const engine::CaseDriver& driver = engine::driver_of(op);
  for (int64_t step = 0; step < c.steps; ++step) {
    if (step > 0) driver.fill_step(t, step);
    store_step_inputs(c, t, step);
    std::memcpy(t.out.storage().data(), out_buffer.storage().data(), out_buffer.storage().size());
    const Dims d = op.reference_step(op.bind(t.args()), reference::Rounding::Kernel);
    c.tensors.emplace(step_name(c, step, "expected.out"), t.out);
    std::vector<engine::RowPlan> plans = driver.plan_rows(t.args(), d);
    driver.after_step(t, plans, true);
  }
  store_final(c, t);
  return c;
}

}  // namespace

GoldenCase generate_case(const GoldenSpec& spec) {
  if (spec.is_error()) return generate_error(spec);
  const engine::OperatorDescription& op = engine::find_operator(spec.op);
  if (!engine::driver_of(op).golden_rings) return generate_driver_case(spec, op);
  CaseTensors t = materialize_spec(spec);
  const HostTensor out_buffer = t.out;  // NaN bytes: every step must write all of out
  GoldenCase c = header_of(spec, t);
  store_invariant_inputs(c, t);
  std::set<Feature> seen;
  for (int64_t step = 0; step < c.steps; ++step) {
    if (step > 0) fill_token(t, step);
    apply_script(spec, t, step);
    note_features(t, step, seen);
    store_step_inputs(c, t, step);
    std::memcpy(t.out.storage().data(), out_buffer.storage().data(), out_buffer.storage().size());
    op.reference_step(op.bind(t.args()), reference::Rounding::Kernel);
    c.tensors.emplace(step_name(c, step, "expected.out"), t.out);
    for (int64_t row = 0; row < spec.config.B && step + 1 < c.steps; ++row) {
      const auto slot = static_cast<int64_t>(t.ssm_state_indices.get_linear(row));
      const bool forced = t.force_flush && t.force_flush->get_linear(row) != 0;
      const bool checkpoint = slot >= 0 && ring_cursor(t, row).step(forced) != RingStep::Append;  // full or history
      if (checkpoint) c.tensors.emplace(checkpoint_name(c, step, slot), checkpoint_of(t.initial_state, slot));
    }
    advance_cursors(t);
  }
  check_features(spec, seen);
  store_final(c, t);
  return c;
}

}  // namespace kda::golden
