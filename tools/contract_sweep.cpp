#include "tools/contract_sweep.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cases/rng.hpp"
#include "contract/error_catalog.hpp"
#include "contract/validate.hpp"
#include "tools/sweep_mutations.hpp"

namespace kda::cli {
namespace {

constexpr auto kPickStream = static_cast<rng::Stream>(0xC0A8);

std::string dims_text(const Dims& d) {
  return fmt::format("B={} H={} HV={} K={} V={} L={} slots={}", d.B, d.H, d.HV, d.K, d.V, d.L, d.slots);
}

// The mismatch between what validate() did and what it must do ("" when they agree).
std::string check_rejection(MetaCall& call, const SweepMutation& expected) {
  BuiltCall built(call);
  try {
    const Dims d = validate(built.args, call.backend);
    return "accepted (" + dims_text(d) + ")";
  } catch (const ContractError& e) {
    const std::string message = expected.message(call.dims);
    if (e.id() != expected.id || e.what() != message)
      return fmt::format("raised {} \"{}\", expected {} \"{}\"", e.id(), e.what(), expected.id, message);
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

SweepResult contract_sweep_case(uint64_t seed, uint64_t index, int mutation_sets) {
  SweepResult r;
  MetaCall valid = draw_valid_call(seed, index);
  r.config = valid.description;
  const SweepDims& sd = valid.dims;
  const Dims want{sd.B, sd.H, sd.HV, sd.K, sd.V, sd.L, sd.slots};
  {
    BuiltCall built(valid);
    ++r.validations;
    try {
      const Dims got = validate(built.args, valid.backend);
      if (got != want) {
        r.pass = false;
        r.detail = "valid call: validate() returned " + dims_text(got) + ", built with " + dims_text(want);
        return r;
      }
    } catch (const std::exception& e) {
      r.pass = false;
      r.detail = std::string("valid call rejected: ") + e.what();
      return r;
    }
  }
  const auto& table = sweep_mutations();
  const rng::Counter pick(seed, kPickStream, index);
  uint64_t e = 0;
  for (int set = 0; set < mutation_sets; ++set) {
    const int count = pick.bernoulli(e++, 0.5) ? 2 : 1;
    MetaCall call = valid;
    std::vector<const SweepMutation*> applied;
    for (int tries = 0; tries < 16 && static_cast<int>(applied.size()) < count; ++tries) {
      const SweepMutation& m = table[pick.below(e++, table.size())];
      bool clash = false;
      for (const SweepMutation* a : applied) clash = clash || a->target == m.target;
      if (!clash && m.apply(call)) applied.push_back(&m);
    }
    if (applied.empty()) continue;
    const SweepMutation* first = applied[0];
    for (const SweepMutation* a : applied)
      if (a->order < first->order) first = a;
    ++r.validations;
    if (std::string why = check_rejection(call, *first); !why.empty()) {
      std::vector<std::string> labels;
      for (const SweepMutation* a : applied) labels.push_back(a->label);
      r.pass = false;
      r.detail = fmt::format("mutations {}: {}", fmt::join(labels, " + "), why);
      return r;
    }
  }
  return r;
}

}  // namespace kda::cli
