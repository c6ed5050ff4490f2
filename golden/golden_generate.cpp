#include "golden/golden_generate.hpp"

#include <fmt/format.h>

#include <cstring>

#include "cases/case_tensors.hpp"
#include "cases/row_padding.hpp"
#include "contract/metadata_json.hpp"
#include "contract/validate.hpp"
#include "engine/case_breaking.hpp"
#include "engine/operator.hpp"
#include "reference/replayssm_step.hpp"

namespace kda::golden {
namespace {

// The materialized case with the spec's layout applied (later tokens are written into it
// through its strides).
CaseTensors materialize_spec(const GoldenSpec& spec) {
  CaseTensors t = materialize(spec.config);
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
  c.generator = kGeneratorTag;
  c.op = spec.op;
  const engine::OperatorDescription& op = engine::find_operator(spec.op);
  c.call_json = call_metadata_json(op.bind(t.args())).dump();
  return c;
}

void store_invariant_inputs(GoldenCase& c, const CaseTensors& t) {
  c.tensors.emplace("A_log", t.A_log);
  c.tensors.emplace("dt_bias", t.dt_bias);
  c.tensors.emplace("ssm_state_indices", t.ssm_state_indices);
  c.tensors.emplace("out", t.out);
  c.tensors.emplace("initial_state", t.initial_state);
  c.tensors.emplace("d_cache", t.d_cache);
  c.tensors.emplace("k_cache", t.k_cache);
  c.tensors.emplace("g_cache", t.g_cache);
}

void store_step_inputs(GoldenCase& c, const CaseTensors& t, int64_t step) {
  c.tensors.emplace(step_name(c, step, "mixed_qkv"), t.mixed_qkv);
  c.tensors.emplace(step_name(c, step, "a"), t.a);
  c.tensors.emplace(step_name(c, step, "b"), t.b);
  c.tensors.emplace(step_name(c, step, "write_pos"), t.write_pos);
  if (t.force_flush) c.tensors.emplace(step_name(c, step, "force_flush"), *t.force_flush);
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
  const auto& inputs = engine::find_operator(spec.op).error_inputs();
  const engine::Mutation m{engine::error_input_index(inputs, spec.error_input), spec.error_variant};
  const std::optional<engine::Expected> expected = engine::break_case(t, m, inputs);
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

}  // namespace

GoldenCase generate_case(const GoldenSpec& spec) {
  if (spec.is_error()) return generate_error(spec);
  const engine::OperatorDescription& op = engine::find_operator(spec.op);
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
      const auto cursor = static_cast<int64_t>(t.write_pos.get_linear(row));
      const bool flush = cursor == spec.config.L - 1 || (t.force_flush && t.force_flush->get_linear(row) != 0);
      if (slot >= 0 && flush) c.tensors.emplace(checkpoint_name(c, step, slot), checkpoint_of(t.initial_state, slot));
    }
    advance_cursors(t);
  }
  check_features(spec, seen);
  c.tensors.emplace("expected.initial_state", t.initial_state);
  c.tensors.emplace("expected.d_cache", t.d_cache);
  c.tensors.emplace("expected.k_cache", t.k_cache);
  c.tensors.emplace("expected.g_cache", t.g_cache);
  return c;
}

}  // namespace kda::golden
