// Golden verification must fail when a backend is wrong: each test injects one kind of fault
// into the CPU reference (a perturbed output, a missing flush, a write outside the step's
// footprint, a write into an envelope gap, a wrong ring record, a wrong or missing error)
// and checks that verify_case() reports it; the reference itself passes bit for bit, also
// after the case went through the safetensors form.
#include <gtest/gtest.h>

#include "engine/backends/function_backend.hpp"

#include <cmath>
#include <cstring>
#include <set>

#include "contract/contract_error.hpp"
#include "contract/tensor_view.hpp"
#include "contract/catalog_message.hpp"
#include "golden/golden_case.hpp"
#include "golden/golden_catalog.hpp"
#include "golden/golden_generate.hpp"
#include "golden/golden_verify.hpp"
#include "operators/kda_replayssm/reference_step.hpp"

namespace kda::golden {
namespace {

GoldenCase generated(const std::string& name) {
  for (const auto& s : golden_specs())
    if (s.name == name) return generate_case(s);
  throw std::logic_error("no golden spec " + name);
}

using engine::FunctionBackend;

// Verification on a backend made of functions (taken by value: the tests build them inline).
engine::CaseReport verify_case(const GoldenCase& c, FunctionBackend b) {
  return golden::verify_case(c, static_cast<engine::Backend&>(b));
}

// The reference, then `fault` on the tensors it left.
FunctionBackend faulty(std::function<void(const StepArgs&)> fault) {
  return {"faulty", [fault](const StepArgs& a) {
            reference::replayssm_step(a, reference::Rounding::Kernel);
            fault(a);
          }};
}

const FunctionBackend kReference{"reference", [](const StepArgs& a) { reference::replayssm_step(a); }};


// Multiplies element `linear` (row-major) of a tensor by `factor` and adds 1e-3 (so a zero
// moves too), in its own dtype; a NaN element (unused storage) becomes 1.
void scale_element(DLTensor* t, int64_t linear, double factor) {
  std::vector<int64_t> index(t->ndim);
  for (int64_t d = t->ndim - 1; d >= 0; --d) {
    index[d] = linear % t->shape[d];
    linear /= t->shape[d];
  }
  const ScalarType type = *scalar_type_of(t->dtype);
  std::byte* p = static_cast<std::byte*>(t->data) + element_offset(*t, index.data()) * size_of(type);
  const double x = load_element(p, type);
  store_element(p, type, std::isnan(x) ? 1.0 : x * factor + 1e-3);
}

std::vector<int64_t> non_padding_rows(const StepArgs& a) {
  std::vector<int64_t> rows;
  for (int64_t r = 0; r < a.mixed_qkv->shape[0]; ++r) {
    const ScalarType t = *scalar_type_of(a.ssm_state_indices->dtype);
    const auto* base = static_cast<const std::byte*>(a.ssm_state_indices->data);
    if (load_element(base + r * a.ssm_state_indices->strides[0] * size_of(t), t) >= 0) rows.push_back(r);
  }
  return rows;
}

TEST(GoldenVerify, ReferenceReproducesEveryKindOfCaseBitForBit) {
  for (const char* name : {"kda_replayssm.sglang_contract_rollout", "kda_replayssm.envelope_strided",
                           "kda_replayssm.padding_rows_int64", "kda_replayssm.gqa_ratio_8",
                           "kda_replayssm.dtype_f16_bf16_f32_bf16", "kda_replayssm.error_k_cache_tp_unsharded"}) {
    SCOPED_TRACE(name);
    const GoldenCase c = generated(name);
    const engine::CaseReport v = verify_case(c, kReference);
    EXPECT_TRUE(v.pass()) << v.summary();
    EXPECT_EQ(v.tensors_bit_exact, v.tensors_compared) << v.summary();
    // The same after the safetensors form (compact storage, strides from the metadata).
    const GoldenCase back = decode(read_safetensors(write_safetensors(encode(c))), "x");
    const engine::CaseReport w = verify_case(back, kReference);
    EXPECT_TRUE(w.pass()) << w.summary();
    EXPECT_EQ(w.tensors_bit_exact, w.tensors_compared);
  }
}

TEST(GoldenVerify, DetectsAPerturbedOutput) {
  // All-float32 bounds are ~1e-5 relative; one output head off by 0.1% is far outside them.
  const GoldenCase c = generated("kda_replayssm.dtype_f32_f32_f32_f32");
  const auto v = verify_case(c, faulty([](const StepArgs& a) {
    const auto rows = non_padding_rows(a);
    ASSERT_FALSE(rows.empty());
    const int64_t per_row = a.out->shape[2] * a.out->shape[3];
    for (int64_t i = 0; i < a.out->shape[3]; ++i) scale_element(a.out, rows[0] * per_row + i, 1.001);
  }));
  EXPECT_FALSE(v.out.pass) << v.summary();
  EXPECT_FALSE(v.pass());
}

TEST(GoldenVerify, DetectsAMissingFlush) {
  // The natural flush of the last step of the SGLang rollout leaves the checkpoint unwritten.
  const GoldenCase c = generated("kda_replayssm.sglang_contract_rollout");
  int step = 0;
  std::vector<std::byte> before;
  const FunctionBackend b{"no-flush-at-the-end", [&](const StepArgs& a) {
                          auto* s = static_cast<std::byte*>(a.initial_state->data);
                          const std::size_t n = (offset_range(*a.initial_state).hi + 1) * 4;
                          before.assign(s, s + n);
                          reference::replayssm_step(a);
                          if (++step == 7) std::memcpy(s, before.data(), n);
                        }};
  const auto v = verify_case(c, b);
  EXPECT_FALSE(v.state.pass) << v.summary();
}

TEST(GoldenVerify, DetectsAWriteOutsideTheStepsFootprint) {
  const GoldenCase c = generated("kda_replayssm.padding_rows_int64");
  // Slot indices the case names; any other slot's checkpoint must stay untouched.
  const auto v = verify_case(c, faulty([](const StepArgs& a) {
    std::set<int64_t> named;
    const ScalarType t = *scalar_type_of(a.ssm_state_indices->dtype);
    for (int64_t r = 0; r < a.ssm_state_indices->shape[0]; ++r)
      named.insert(static_cast<int64_t>(load_element(static_cast<const std::byte*>(a.ssm_state_indices->data) + r * size_of(t), t)));
    int64_t free_slot = 0;
    while (named.count(free_slot)) ++free_slot;
    ASSERT_LT(free_slot, a.initial_state->shape[0]);
    const int64_t per_slot = a.initial_state->shape[1] * a.initial_state->shape[2] * a.initial_state->shape[3];
    scale_element(a.initial_state, free_slot * per_slot + 3, 2.0);
  }));
  // The driver's footprint check stops the case at the step, naming the element.
  EXPECT_FALSE(v.pass());
  EXPECT_NE(v.failure.find("token 0: initial_state["), std::string::npos) << v.summary();
  EXPECT_NE(v.failure.find("no accepted row names slot"), std::string::npos) << v.summary();
}

TEST(GoldenVerify, DetectsAWriteIntoAnEnvelopeGap) {
  const GoldenCase c = generated("kda_replayssm.envelope_strided");
  const auto v = verify_case(c, faulty([](const StepArgs& a) {
    // The byte just after slot 0's last element of initial_state lies in the slot gap.
    const int64_t last = (a.initial_state->shape[1] - 1) * a.initial_state->strides[1] +
                         (a.initial_state->shape[2] - 1) * a.initial_state->strides[2] +
                         (a.initial_state->shape[3] - 1) * a.initial_state->strides[3];
    const std::size_t size = size_of(*scalar_type_of(a.initial_state->dtype));
    static_cast<std::byte*>(a.initial_state->data)[(last + 1) * size] = std::byte{0x11};
  }));
  EXPECT_FALSE(v.pass());
  EXPECT_NE(v.failure.find("initial_state byte"), std::string::npos) << v.summary();
  EXPECT_NE(v.failure.find("gap of the strided layout"), std::string::npos) << v.summary();
}

TEST(GoldenVerify, DetectsAWrongRingRecord) {
  const GoldenCase c = generated("kda_replayssm.gqa_ratio_8");  // appends at step 0
  const auto v = verify_case(c, faulty([](const StepArgs& a) {
    const int64_t n = a.g_cache->shape[0] * a.g_cache->shape[1] * a.g_cache->shape[2] * a.g_cache->shape[3];
    for (int64_t i = 0; i < n; ++i) scale_element(a.g_cache, i, 1.01);  // every record, written or not
  }));
  EXPECT_FALSE(v.pass());
  EXPECT_NE(v.headline().find("g_cache"), std::string::npos) << v.summary();
}

TEST(GoldenVerify, ErrorCasesNeedTheExactErrorAndNoWrite) {
  const GoldenCase c = generated("kda_replayssm.error_k_cache_hv_heads");
  EXPECT_TRUE(verify_case(c, kReference).pass());
  EXPECT_FALSE(verify_case(c, {"accepts", [](const StepArgs&) {}}).pass());
  EXPECT_FALSE(verify_case(c, {"other message", [](const StepArgs&) {
                                 throw ContractError("R6", catalog_message("R7"));
                               }}).pass());
  EXPECT_FALSE(verify_case(c, {"other id", [](const StepArgs&) {
                                 throw ContractError("R5", catalog_message("R6"));
                               }}).pass());
  const auto v = verify_case(c, {"writes then raises", [](const StepArgs& a) {
                                   static_cast<std::byte*>(a.out->data)[0] = std::byte{0};
                                   reference::replayssm_step(a);
                                 }});
  EXPECT_FALSE(v.pass());
  EXPECT_NE(v.failure.find("but changed out[0, 0, 0, 0] (row 0, value head 0) changed from"), std::string::npos)
      << v.failure;
  EXPECT_NE(v.failure.find("a refused call must write nothing"), std::string::npos) << v.failure;
}

TEST(GoldenVerify, AnErrorCaseRefusedWithoutAContractErrorSaysWhatWasRaised) {
  const GoldenCase c = generated("kda_replayssm.error_k_cache_hv_heads");
  const auto v = verify_case(c, {"own-words", [](const StepArgs&) {
                                   throw engine::BackendRefusal("plugin:own-words refused the call: bad k_cache");
                                 }});
  EXPECT_FALSE(v.pass());
  const std::string s = v.summary();
  EXPECT_EQ(s.find("(nothing)"), std::string::npos) << s;
  EXPECT_NE(s.find("raised: plugin:own-words refused the call: bad k_cache"), std::string::npos) << s;
  EXPECT_NE(s.find("FAILURE: refused with a message that is no catalog entry; expected R"), std::string::npos) << s;
  const auto accepted = verify_case(c, {"accepts", [](const StepArgs&) {}});
  EXPECT_EQ(accepted.summary().find("raised:"), std::string::npos) << accepted.summary();
  EXPECT_NE(accepted.summary().find("FAILURE: accepted a call that must raise"), std::string::npos);
}

TEST(GoldenVerify, AnErrorCaseOutsideTheEnvelopeOrOnlyAnExtensionsIsOwedAnyRefusal) {
  const auto own_words = [](const StepArgs&) { throw engine::BackendRefusal("plugin:own refused the call: no"); };
  // bfloat16 activations sent to a float32-only backend: a refusal is all it owes.
  const GoldenCase seed_error = generated("kda_replayssm.error_k_cache_hv_heads");
  engine::Envelope f32_only;
  f32_only.act_dtypes = KDA_DT_FLOAT32;
  ASSERT_NE(f32_only.excludes(*seed_error.config), "");
  const auto outside = verify_case(seed_error, FunctionBackend("f32-only", own_words, engine::Profile::Helion, f32_only));
  EXPECT_TRUE(outside.pass()) << outside.summary();
  EXPECT_NE(outside.note.find("any message: outside the backend's envelope: activation dtype bfloat16"),
            std::string::npos) << outside.note;
  EXPECT_FALSE(verify_case(seed_error, FunctionBackend("f32-only", [](const StepArgs&) {}, engine::Profile::Helion,
                                                       f32_only)).pass());
  // Only the harness's extension X-RING-SLOTS refuses this one: no wrapper raises its text.
  const GoldenCase extension = generated("kda_replayssm.error_ring_slots");
  const auto any = verify_case(extension, {"own-words", own_words});
  EXPECT_TRUE(any.pass()) << any.summary();
  EXPECT_NE(any.note.find("only the harness's extension X-RING-SLOTS"), std::string::npos) << any.note;
  const auto writes = verify_case(extension, {"writes", [](const StepArgs& a) {
                                                static_cast<std::byte*>(a.out->data)[0] = std::byte{0};
                                                throw engine::BackendRefusal("no");
                                              }});
  EXPECT_FALSE(writes.pass());
}

TEST(GoldenVerify, FilesWithoutExpectedResultsAreJudgedByTheFloat64Model) {
  GoldenCase c = generated("kda_replayssm.rollout_gqa_9_tokens");
  for (auto it = c.tensors.begin(); it != c.tensors.end();)
    it = it->first.find("expected.") != std::string::npos ? c.tensors.erase(it) : std::next(it);
  const auto ok = verify_case(c, kReference);
  EXPECT_EQ(ok.against, "model");
  EXPECT_TRUE(ok.pass()) << ok.summary();
  EXPECT_GT(ok.out.blocks, 0);
  const auto bad = verify_case(c, faulty([](const StepArgs& a) { scale_element(a.out, 0, 3.0); }));
  EXPECT_FALSE(bad.pass()) << bad.summary();
}

}  // namespace
}  // namespace kda::golden
