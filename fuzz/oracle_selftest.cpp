// The contract fuzzer's oracle must be able to fail: it is fed validate()'s right answer on
// the decoder's plausible call (accepted), and wrong answers that a broken validate() could
// give (other Dims, a catalog error whose condition does not hold, a message with the wrong
// number, one entry's message under another's id, an id outside the catalog), each of which
// it must reject. The call and the answers are the default operator's, judged by its restated
// contract (its description's restated_contract). Also the runtime-value path of the step check on a valid call.
#include <gtest/gtest.h>

#include "contract/catalog_message.hpp"
#include "contract/validate.hpp"
#include "engine/operator.hpp"
#include "fuzz/contract_oracle.hpp"
#include "fuzz/contract_step_check.hpp"
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
  EXPECT_EQ(check_reference_step(args, dims, empty), "");
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

}  // namespace
}  // namespace kda::fuzz
