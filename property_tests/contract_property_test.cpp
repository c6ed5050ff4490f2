// The contract's main property, for every operator of the table (engine/description/operator.hpp): a
// random VALID call is accepted with the right dims; a random set of the operator's error
// inputs then raises the id and exact message of the earliest mutated check, and every raised
// message matches exactly one catalog pattern, an entry that names the operator. The case
// count comes from RC_PARAMS (ctest sets max_success=10000).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <optional>
#include <vector>

#include "contract/error_catalog.hpp"
#include "contract/host_tensor.hpp"
#include "contract/tensor_view.hpp"
#include "contract/torch_view.hpp"
#include "contract/validate.hpp"
#include "engine/description/operator.hpp"
#include "property_tests/rc_chooser.hpp"

namespace kda::test {
namespace {

using engine::CallConfig;
using engine::CallSpec;
using engine::Expected;

// Runs the operator's validate() and returns the error it raised (id empty when it accepted).
Expected run(const engine::OperatorDescription& op, const CallSpec& spec, Dims* dims = nullptr) {
  engine::BuiltCall call(spec);
  try {
    const Dims d = op.validate(op.bind(engine::step_args(call)), spec.backend);
    if (dims) *dims = d;
    return {};
  } catch (const ContractError& e) {
    return {e.id(), e.what()};
  }
}

RC_GTEST_PROP(ContractProperty, ValidCallsPassAndEarliestMutationWins, ()) {
  const engine::OperatorDescription& op = **rc::gen::elementOf(engine::operators()).as("operator");
  const CallConfig config = *testing::gen_call_config(engine::limits::contract_calls(), op).as("config");
  const testing::MutationSet mutations = *testing::gen_mutation_set(4, op).as("mutations");

  const CallSpec valid = op.valid_spec(config);
  Dims dims;
  const Expected base = run(op, valid, &dims);
  RC_ASSERT(base.id == "");
  RC_ASSERT(dims == op.dims_of(config));

  engine::MutationTarget target{valid, op.dims_of(config), config.B};
  const engine::MutationResult result = engine::apply_mutations(op.error_inputs(), target, mutations.items);
  const Expected raised = run(op, target.spec);
  if (!result.expected) {
    RC_TAG(std::string("accepted"));
    RC_ASSERT(raised.id == "");
    return;
  }
  RC_TAG(result.expected->id);
  RC_ASSERT(raised.id == result.expected->id);
  RC_ASSERT(raised.message == result.expected->message);
  RC_ASSERT(catalog_ids_matching(raised.message) == std::vector<std::string>{raised.id});
  RC_ASSERT(engine::raises(op, raised.id));  // its description lists the id (its entry exists: matched above)
}

// strides of torch.empty(shape), written out independently of contract/tensor_view: stride d
// is the product of max(size, 1) over the later dims (e.g. [2, 2, 64, 0] has
// (128, 64, 1, 1)); nullopt where a product leaves int64 (the extents error inputs' 2^62
// sizes: no framework allocates them, so their strides stay as the call gives them).
std::optional<std::vector<int64_t>> torch_empty_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;)
    if (__builtin_mul_overflow(s[d], std::max<int64_t>(shape[d], 1), &s[d - 1])) return std::nullopt;
  return s;
}

TEST(ContractCompactStrides, AreTheStridesPyTorchAllocates) {
  EXPECT_EQ(compact_strides({2, 2, 64, 0}), (std::vector<int64_t>{128, 64, 1, 1}));
  EXPECT_EQ(compact_strides({0, 3}), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(compact_strides({4, 0, 5}), (std::vector<int64_t>{5, 5, 1}));
  EXPECT_EQ(compact_strides({}), std::vector<int64_t>{});
  engine::CallSpec spec;
  engine::TensorSpec t;
  t.shape = {2, 2, 64, 0};
  spec.set("x", t);
  engine::BuiltCall call(spec);
  const DLTensor& x = *call.tensor("x");
  ASSERT_EQ(x.strides, nullptr);
  EXPECT_EQ(strides_of(x), (std::vector<int64_t>{128, 64, 1, 1}));
  EXPECT_EQ(stride(x, 1), 64);
  const std::vector<i128> wide = wide_strides(x);
  EXPECT_EQ(std::vector<int64_t>(wide.begin(), wide.end()), (std::vector<int64_t>{128, 64, 1, 1}));
  EXPECT_EQ(HostTensor(ScalarType::Float16, {2, 2, 64, 0}).strides(), (std::vector<int64_t>{128, 64, 1, 1}));
}

// Null strides mean what PyTorch allocates, in every operator's contract: a call (valid or
// broken by a random set of error inputs, then one dim of one tensor set to 0 so that empty
// tensors are common) gets the same answer with each tensor's strides null as with
// torch.empty(shape).stride() written out.
RC_GTEST_PROP(ContractProperty, NullStridesAreTorchEmptyStrides, ()) {
  const engine::OperatorDescription& op = **rc::gen::elementOf(engine::operators()).as("operator");
  const CallConfig config = *testing::gen_call_config(engine::limits::contract_calls(), op).as("config");
  const testing::MutationSet mutations = *testing::gen_mutation_set(2, op).as("mutations");
  engine::MutationTarget target{op.valid_spec(config), op.dims_of(config), config.B};
  engine::apply_mutations(op.error_inputs(), target, mutations.items);
  std::vector<engine::TensorSpec*> tensors = target.spec.all();
  const std::size_t which = *rc::gen::inRange<std::size_t>(0, tensors.size()).as("tensor zeroed");
  engine::TensorSpec& zeroed = *tensors[which];
  if (!zeroed.shape.empty()) {
    const std::size_t dim = *rc::gen::inRange<std::size_t>(0, zeroed.shape.size()).as("dim zeroed");
    zeroed.shape[dim] = 0;
    if (const auto strides = torch_empty_strides(zeroed.shape); strides && !zeroed.null_strides) zeroed.strides = *strides;
  }
  engine::CallSpec null = target.spec, written = target.spec;
  for (engine::TensorSpec* t : null.all())
    if (!t->null_strides && torch_empty_strides(t->shape) == t->strides) t->null_strides = true;
  for (engine::TensorSpec* t : written.all())
    if (const auto strides = torch_empty_strides(t->shape); strides && t->null_strides)
      t->strides = *strides, t->null_strides = false;
  const Expected a = run(op, null), b = run(op, written);
  RC_TAG(a.id.empty() ? std::string("accepted") : a.id);
  RC_ASSERT(a.id == b.id);
  RC_ASSERT(a.message == b.message);
}

// Every error input, alone, on a few fixed configs and each of its variants: the raised error
// is its own check's. Guarantees each runs at least once, whatever the random draw; two
// configs have 2 and 4 tokens a sequence (the recurrent decode family's T; the other operators
// take one); the last config has the smallest heads of the sweep's space (K = V = 1, one row),
// where the inputs that cannot break their check there must say so.
TEST(ContractMutations, EachMutationAloneRaisesItsOwnCheck) {
  std::vector<CallConfig> configs(6);
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
  configs[3].tokens = 2;
  configs[3].slots = 6;
  configs[4].tokens = 4;
  configs[4].slots = 12;
  configs[5].B = configs[5].H = configs[5].group = configs[5].K = configs[5].V = configs[5].L = configs[5].slots = 1;
  for (const engine::OperatorDescription* op : engine::operators()) {
    SCOPED_TRACE(std::string(op->name));
    const auto& inputs = op->error_inputs();
    int applied = 0, declined = 0, declined_before_the_last = 0;
    for (const CallConfig& c : configs) {
      declined_before_the_last = declined;
      for (std::size_t input = 0; input < inputs.size(); ++input) {
        for (uint32_t variant = 0; variant < 48; ++variant) {
          engine::MutationTarget t{op->valid_spec(c), op->dims_of(c), c.B};
          const engine::Mutation m{input, variant};
          const engine::MutationResult r = engine::apply_mutations(inputs, t, {m});
          if (!r.expected) {
            ++declined;
            continue;
          }
          ++applied;
          const Expected raised = run(*op, t.spec);
          ASSERT_EQ(raised.id, r.expected->id) << inputs[input].label << "#" << variant << " on " << to_string(c);
          ASSERT_EQ(raised.message, r.expected->message) << inputs[input].label << "#" << variant;
        }
      }
    }
    // On the first five configs no input declines; on the K = V = 1 one a few may (ReplaySSM's
    // V8, a one-element out, and V21, every q size dividing by K = 1), never most.
    const int per_config = static_cast<int>(inputs.size()) * 48;
    EXPECT_EQ(declined_before_the_last, 0);
    EXPECT_LE(declined, per_config / 4);
    EXPECT_EQ(applied, static_cast<int>(configs.size()) * per_config - declined);
  }
}

}  // namespace
}  // namespace kda::test
