// The contract fuzzer's oracle must be able to fail: it is fed validate()'s right answer on
// the decoder's plausible call (accepted), and wrong answers that a broken validate() could
// give (other Dims, a catalog error whose condition does not hold, a message with the wrong
// number, one entry's message under another's id, an id outside the catalog), each of which
// it must reject. The call and the answers are the default operator's, judged by its restated
// contract (its description's restated_contract). Also the runtime-value path of the step check on a valid call.
#include <gtest/gtest.h>

#include "contract/catalog_message.hpp"
#include "contract/validate.hpp"
#include "engine/description/call_config.hpp"
#include "engine/description/call_description.hpp"
#include "engine/description/contract_restatement.hpp"
#include "engine/description/counter_chooser.hpp"
#include "engine/description/operator.hpp"
#include "fuzz/contract_oracle.hpp"
#include "fuzz/fdp_chooser.hpp"
#include "fuzz/metadata_decoder.hpp"

namespace kda::fuzz {
namespace {

struct PlausibleCall : ::testing::Test {
  FuzzedDataProvider empty{nullptr, 0};
  DecodedCall call = decode_call(empty);
  StepArgs args = call.meta.args();
  const engine::OperatorDescription& op = engine::default_operator();
};

TEST_F(PlausibleCall, TheDefaultOperatorIsRestated) { ASSERT_NE(op.restated_contract, nullptr); }

TEST_F(PlausibleCall, RightAnswerPasses) {
  const Dims dims = op.validate(args, Backend::Any);
  EXPECT_EQ(judge_acceptance(op, args, Backend::Any, dims), "");
  ASSERT_NE(op.restated_contract->reference_step_holds, nullptr);
  FdpChooser choices(empty);
  EXPECT_EQ(op.restated_contract->reference_step_holds(args, dims, choices), "");
}

TEST_F(PlausibleCall, WrongAcceptanceFails) {
  Dims wrong = op.validate(args, Backend::Any);
  ++wrong.L;
  EXPECT_NE(judge_acceptance(op, args, Backend::Any, wrong), "");
  // Accepted for the CUDA backend although every tensor is on the CPU.
  EXPECT_NE(judge_acceptance(op, args, Backend::Cuda, op.validate(args, Backend::Any)), "");
}

TEST_F(PlausibleCall, WrongRejectionsFail) {
  // Well-formed messages of entries whose condition does not hold for this call, a message
  // under another entry's id, and an id the catalog lacks.
  EXPECT_NE(judge_rejection(op, args, Backend::Any, ContractError("V1", catalog_message("V1", {{"ndim", 2}}))), "");
  EXPECT_NE(judge_rejection(op, args, Backend::Any, ContractError("V99", "no such entry")), "");
  EXPECT_NE(judge_rejection(op, args, Backend::Any, ContractError("V2", catalog_message("W1"))), "");
  EXPECT_NE(judge_rejection(op, args, Backend::Any, ContractError("X-RING-SLOTS", catalog_message("X-RING-SLOTS"))), "");
}

TEST_F(PlausibleCall, RightRejectionPasses) {
  // The same call judged for a CPU backend after moving mixed_qkv to CUDA: V9 is right.
  call.meta.mixed_qkv.dl().device = {kDLCUDA, 0};
  try {
    op.validate(args, Backend::Any);
    FAIL() << "validate() accepted tensors on two devices";
  } catch (const ContractError& e) {
    EXPECT_EQ(e.id(), "V9");
    EXPECT_EQ(judge_rejection(op, args, Backend::Any, e), "");
    EXPECT_NE(judge_rejection(op, args, Backend::Any, ContractError("V9", "All inputs must be on one device.")), "");
  }
}

// Every operator whose description restates its contract, on its own sample space: its valid
// calls are accepted by the restatement (and a wrong Dims is not), and each of its error
// inputs, alone in several variants, raises an error the restatement judges right (its
// condition holds, its message is the one rebuilt from the metadata).
TEST(RestatedContracts, AgreeWithEachOperatorsValidCallsAndErrorInputs) {
  int restated = 0;
  for (const engine::OperatorDescription* op : engine::operators()) {
    if (!op->restated_contract) continue;
    ++restated;
    const std::vector<engine::ErrorInput>& inputs = op->error_inputs();
    int rejections = 0;
    for (uint64_t n = 0; n < 12; ++n) {
      engine::CounterChooser chooser(11, engine::stream::kContractCalls, n);
      const engine::CallConfig c = op->sample_call(chooser, engine::SampleLimits{});
      const std::string where = std::string(op->name) + " on " + engine::to_string(c);
      {
        engine::BuiltCall call(op->valid_spec(c));
        const StepArgs args = op->bind(engine::step_args(call));
        const Dims dims = op->validate(args, Backend::Any);
        EXPECT_EQ(judge_acceptance(*op, args, Backend::Any, dims), "") << where;
        Dims wrong = dims;
        ++wrong.B;
        EXPECT_NE(judge_acceptance(*op, args, Backend::Any, wrong), "") << where;
      }
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        for (uint32_t variant = 0; variant < 6; ++variant) {
          engine::MutationTarget t{op->valid_spec(c), op->dims_of(c), c.B};
          if (!inputs[i].apply(t, variant)) continue;
          engine::BuiltCall call(t.spec);
          const StepArgs args = op->bind(engine::step_args(call));
          try {
            op->validate(args, t.spec.backend);
            ADD_FAILURE() << inputs[i].label << "#" << variant << " accepted, " << where;
          } catch (const ContractError& e) {
            ++rejections;
            EXPECT_EQ(judge_rejection(*op, args, t.spec.backend, e), "") << inputs[i].label << "#" << variant << ", " << where;
          }
        }
      }
    }
    EXPECT_GT(rejections, 0) << op->name;
  }
  EXPECT_GE(restated, 2);
}

}  // namespace
}  // namespace kda::fuzz
