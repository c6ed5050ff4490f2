// The Chooser of the property tests: every choice is a RapidCheck draw, so a failing case
// shrinks choice by choice towards the first option and the low end of each range (small
// shapes). Draws are made at RapidCheck's nominal size, so every value of a range is drawn
// from the first case on (the size parameter would otherwise keep early cases tiny).
// gen_case, gen_call_config and gen_mutation_set are the sample space's generators
// (an operator's sample_case and sample_call, engine/description/error_inputs.hpp).
#pragma once
#include <rapidcheck.h>

#include <numeric>
#include <ostream>

#include "cases/case_config.hpp"
#include "engine/description/chooser.hpp"
#include "engine/description/operator.hpp"
#include "engine/description/suite_limits.hpp"
#include "operators/kda_replayssm/error_inputs.hpp"

namespace kda {
// RapidCheck prints a failing CaseConfig as its one-line form (replayable with
// `kda-harness case "<line>"`).
inline void showValue(const CaseConfig& c, std::ostream& os) { os << to_string(c); }
namespace engine {
inline void showValue(const CallConfig& c, std::ostream& os) { os << to_string(c); }
}  // namespace engine
}  // namespace kda

namespace kda::testing {

class RcChooser final : public engine::Chooser {
 public:
  static constexpr int kNominalSize = 100;
  std::size_t pick(std::span<const uint32_t> weights) override {
    const uint64_t total = std::accumulate(weights.begin(), weights.end(), uint64_t{0});
    uint64_t r = *rc::gen::resize(kNominalSize, rc::gen::inRange<uint64_t>(0, total));
    for (std::size_t i = 0; i < weights.size(); ++i) {
      if (r < weights[i]) return i;
      r -= weights[i];
    }
    return weights.size() - 1;
  }
  int64_t integer(int64_t lo, int64_t hi) override {
    return *rc::gen::resize(kNominalSize, rc::gen::inRange<int64_t>(lo, hi + 1));
  }
  uint64_t bits() override { return *rc::gen::resize(kNominalSize, rc::gen::arbitrary<uint64_t>()); }
};

// A case of `op` (its fit_case applied: kda_replayssm's by default, whose rings are linear);
// nullptr: the default operator's sample space's draw as it is (ring variants included).
inline rc::Gen<CaseConfig> gen_case(const engine::SampleLimits& limits,
                                    const engine::OperatorDescription* op = &engine::default_operator()) {
  return rc::gen::exec([limits, op] {
    RcChooser c;
    const CaseConfig drawn = (op ? *op : engine::default_operator()).sample_case(c, limits);
    return op ? op->fit_case(drawn) : drawn;
  });
}

inline rc::Gen<engine::CallConfig> gen_call_config(const engine::SampleLimits& limits,
                                                   const engine::OperatorDescription& op = engine::default_operator()) {
  return rc::gen::exec([limits, &op] {
    RcChooser c;
    return op.sample_call(c, limits);
  });
}

// A set of an operator's error inputs (0..max_size of them, on distinct checks).
struct MutationSet {
  std::vector<engine::Mutation> items;
  const engine::OperatorDescription* op = &engine::default_operator();
};
inline void showValue(const MutationSet& s, std::ostream& os) {
  os << s.op->name << ": " << engine::describe(s.op->error_inputs(), s.items);
}
inline rc::Gen<MutationSet> gen_mutation_set(int max_size = 4,
                                             const engine::OperatorDescription& op = engine::default_operator()) {
  return rc::gen::exec([max_size, &op] {
    RcChooser c;
    return MutationSet{engine::sample_mutations(c, op.error_inputs().size(), max_size), &op};
  });
}

}  // namespace kda::testing
