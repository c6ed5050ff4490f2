#include "tools/contract_sweep.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "contract/error_catalog.hpp"
#include "contract/validate.hpp"
#include "engine/description/counter_chooser.hpp"

namespace kda::cli {
namespace {

std::string dims_text(const Dims& d) {
  return fmt::format("B={} H={} HV={} K={} V={} L={} slots={}", d.B, d.H, d.HV, d.K, d.V, d.L, d.slots);
}

// The mismatch between what validate() did and what it must do ("" when they agree).
std::string check_call(const engine::OperatorDescription& op, const engine::CallSpec& spec,
                       const std::optional<engine::Expected>& expected, const Dims& valid_dims) {
  engine::BuiltCall built(spec);
  try {
    const Dims d = op.validate(op.bind(engine::step_args(built)), spec.backend);
    if (expected)
      return fmt::format("accepted ({}), expected {} \"{}\"", dims_text(d), expected->id, expected->message);
    if (d != valid_dims) return "validate() returned " + dims_text(d) + ", built with " + dims_text(valid_dims);
    return "";
  } catch (const ContractError& e) {
    if (!expected) return fmt::format("rejected: {} \"{}\"", e.id(), e.what());
    if (e.id() != expected->id || e.what() != expected->message)
      return fmt::format("raised {} \"{}\", expected {} \"{}\"", e.id(), e.what(), expected->id, expected->message);
    const auto ids = catalog_ids_matching(e.what());
    if (ids.size() != 1 || ids[0] != e.id())
      return fmt::format("message \"{}\" matches catalog ids [{}], expected exactly {}", e.what(), fmt::join(ids, ", "),
                         e.id());
    return "";
  } catch (const std::exception& e) {
    return std::string("threw a non-contract error: ") + e.what();
  }
}

}  // namespace

SweepResult contract_sweep_case(const engine::OperatorDescription& op, uint64_t seed, uint64_t index,
                                const engine::SampleLimits& limits, int mutation_sets, int max_mutations) {
  engine::CounterChooser choose(seed, engine::stream::kContractCalls, index);
  const engine::CallConfig config = op.sample_call(choose, limits);
  const engine::CallSpec valid = op.valid_spec(config);
  SweepResult r;
  r.config = engine::to_string(config);
  ++r.validations;
  if (std::string why = check_call(op, valid, std::nullopt, op.dims_of(config)); !why.empty()) {
    r.pass = false;
    r.detail = "valid call: " + why;
    return r;
  }
  const auto& inputs = op.error_inputs();
  for (int set = 0; set < mutation_sets; ++set) {
    const std::vector<engine::Mutation> mutations = engine::sample_mutations(choose, inputs.size(), max_mutations);
    engine::MutationTarget target{valid, op.dims_of(config), config.B};
    const engine::MutationResult applied = engine::apply_mutations(inputs, target, mutations);
    if (!applied.expected) continue;  // none of them could break its check on this call
    ++r.validations;
    if (std::string why = check_call(op, target.spec, applied.expected, op.dims_of(config)); !why.empty()) {
      r.pass = false;
      r.detail = fmt::format("mutations {}: {}", engine::describe(inputs, applied.applied), why);
      return r;
    }
  }
  return r;
}

}  // namespace kda::cli
