// The contract's main property (issue 2): a random VALID call is accepted with the right
// dims; a random set of targeted mutations then raises the id and exact message of the
// earliest mutated check, and every raised message matches exactly one catalog pattern.
// The case count comes from RC_PARAMS (ctest sets max_success=10000).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "contract/error_catalog.hpp"
#include "contract/validate.hpp"
#include "property_tests/contract_generators.hpp"

namespace kda::test {
namespace {

// Runs validate() and returns the error it raised (id empty when it accepted).
Expected run(const CallSpec& spec, Dims* dims = nullptr) {
  BuiltCall call(spec);
  try {
    const Dims d = validate(call.args(), spec.backend);
    if (dims) *dims = d;
    return {};
  } catch (const ContractError& e) {
    return {e.id(), e.what()};
  }
}

RC_GTEST_PROP(ContractProperty, ValidCallsPassAndEarliestMutationWins, ()) {
  const ValidCallConfig config = *gen_valid_config().as("config");
  const MutationSet mutations = *gen_mutation_set().as("mutations");

  const CallSpec valid = make_valid_spec(config);
  Dims dims;
  const Expected base = run(valid, &dims);
  RC_ASSERT(base.id == "");
  RC_ASSERT(dims == config.dims());

  MutationTarget target{valid, config, config.B};
  const MutationResult result = apply_mutations(target, mutations.items);
  const Expected raised = run(target.spec);
  if (!result.expected) {
    RC_TAG(std::string("accepted"));
    RC_ASSERT(raised.id == "");
    return;
  }
  RC_TAG(result.expected->id);
  RC_ASSERT(raised.id == result.expected->id);
  RC_ASSERT(raised.message == result.expected->message);
  RC_ASSERT(catalog_ids_matching(raised.message) == std::vector<std::string>{raised.id});
}

// Every mutation, alone, on a few fixed configs and each of its variants: the raised error is
// its own check's. Guarantees each mutation runs at least once, whatever the random draw.
TEST(ContractMutations, EachMutationAloneRaisesItsOwnCheck) {
  std::vector<ValidCallConfig> configs(3);
  configs[1].B = 1;
  configs[1].H = 1;
  configs[1].group = 1;
  configs[1].K = 16;
  configs[1].V = 32;
  configs[1].L = 1;
  configs[1].slots = 1;
  configs[1].unit_stride = 5;
  configs[1].a_3d = configs[1].dt_2d = true;
  configs[1].envelope_pad = 9;
  configs[2].device = {kDLCUDA, 2};
  configs[2].force_flush = false;
  configs[2].B = 7;
  int applied = 0;
  for (const ValidCallConfig& c : configs) {
    for (int check = 0; check < kCheckCount; ++check) {
      for (uint32_t variant = 0; variant < 48; ++variant) {
        MutationTarget t{make_valid_spec(c), c, c.B};
        const Mutation m{static_cast<Check>(check), variant};
        const MutationResult r = apply_mutations(t, {m});
        if (!r.expected) continue;
        ++applied;
        const Expected raised = run(t.spec);
        ASSERT_EQ(raised.id, r.expected->id) << check_name(m.check) << "#" << variant << " on " << to_string(c);
        ASSERT_EQ(raised.message, r.expected->message) << check_name(m.check) << "#" << variant;
      }
    }
  }
  EXPECT_EQ(applied, 3 * kCheckCount * 48);  // no mutation is skipped on these configs
}

}  // namespace
}  // namespace kda::test
