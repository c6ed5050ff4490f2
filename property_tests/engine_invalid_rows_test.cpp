// What a backend declares of runtime-invalid rows (Envelope::invalid_rows, plugin.h's
// invalid_rows) and what the suites then feed it; padding at both ends of a batch; production
// shapes (--model) and the batches they are drawn at.
#include <gtest/gtest.h>

#include <cstddef>
#include <set>

#include "engine/backends/function_backend.hpp"
#include "engine/backends/plugin_backend.hpp"
#include "engine/description/operator.hpp"
#include "engine/description/production_shapes.hpp"
#include "engine/description/suite_limits.hpp"
#include "engine/driver/backend_cases.hpp"
#include "engine/driver/run_case.hpp"
#include "engine/driver/suites.hpp"
#include "operators/kda_replayssm/reference_step.hpp"
#include "operators/replayssm_family/case_tensors.hpp"

namespace kda::engine {
namespace {

// Element `i` of a host index tensor of either index dtype.
int64_t read_index(const DLTensor& t, int64_t i) {
  const char* base = static_cast<const char*>(t.data) + t.byte_offset + i * t.strides[0] * (t.dtype.bits / 8);
  return t.dtype.bits == 32 ? *reinterpret_cast<const int32_t*>(base) : *reinterpret_cast<const int64_t*>(base);
}

constexpr int64_t kPlanned = 100;

FunctionBackend reference_declaring(InvalidRows r) {
  Envelope e;
  e.invalid_rows = r;
  return FunctionBackend("declares", [](const StepArgs& a) { reference::replayssm_step(a); }, Profile::Helion, e);
}

int count_kind(const Backend& b, PlannedCase::Kind kind, const SuiteDraws& draws = {}) {
  int n = 0;
  for (int64_t i = 0; i < kPlanned; ++i) n += plan_suite_case(*find_suite("kernel"), b, draws, i).kind == kind;
  return n;
}

TEST(InvalidRows, OnlyABackendThatClaimsThemIsFedInvalidRows) {
  EXPECT_EQ(count_kind(reference_declaring(InvalidRows::None), PlannedCase::Kind::InvalidRow), 0);
  EXPECT_EQ(count_kind(reference_declaring(InvalidRows::None), PlannedCase::Kind::InvalidRowProbe), 0);
  EXPECT_GE(count_kind(reference_declaring(InvalidRows::Raise), PlannedCase::Kind::InvalidRow), kPlanned / 5 - 2);
  EXPECT_GE(count_kind(reference_declaring(InvalidRows::Flag), PlannedCase::Kind::InvalidRow), kPlanned / 5 - 2);
}

TEST(InvalidRows, AProbeFeedsThemAndNeverFails) {
  SuiteDraws probe;
  probe.probe_invalid_rows = true;
  probe.work_budget = 2e5;
  // The reference step refuses such rows: the probe reports the refusal and passes.
  FunctionBackend none = reference_declaring(InvalidRows::None);
  const int probes = count_kind(none, PlannedCase::Kind::InvalidRowProbe, probe);
  EXPECT_GE(probes, kPlanned / 5 - 2);
  for (int64_t i = 0; i < kPlanned; ++i) {
    if (plan_suite_case(*find_suite("kernel"), none, probe, i).kind != PlannedCase::Kind::InvalidRowProbe) continue;
    const CaseReport r = run_suite_case(*find_suite("kernel"), none, probe, i);
    EXPECT_TRUE(r.pass()) << r.failure;
    EXPECT_NE(r.note.find("probe: "), std::string::npos) << r.note;
    EXPECT_NE(r.note.find("refused the call"), std::string::npos) << r.note;
    break;
  }
}

TEST(InvalidRows, AFlagDeclarationWithoutARowStatusFails) {
  FunctionBackend flags = reference_declaring(InvalidRows::Flag);
  const CaseReport r = run_vs_reference(parse_case_config("B=2 H=1 HV=1 K=8 V=8 L=4 slots=2 steps=1 pad=0 seed=3"), flags);
  EXPECT_FALSE(r.pass());
  EXPECT_NE(r.failure.find("reported no row status"), std::string::npos) << r.failure;
}

TEST(InvalidRows, AVersion1PluginClaimsNothingAndAnUnknownDeclarationIsRefused) {
  kda_plugin p{};
  p.abi_version = 1;
  p.op = "kda_replayssm";
  p.step = [](void*, const kda_call*) -> int32_t { return 0; };
  p.last_error = [](void*) -> const char* { return ""; };
  p.envelope = {KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_INDICES,
                1, 256, 1, 256, 0, 1, kDLCPU};
  p.invalid_rows = KDA_INVALID_ROWS_RAISE;  // past a version 1 plugin's end: never read
  EXPECT_EQ(plugin_backend(p, "v1")->envelope().invalid_rows, InvalidRows::None);
  p.abi_version = 2;
  EXPECT_EQ(plugin_backend(p, "v2")->envelope().invalid_rows, InvalidRows::Raise);
  p.invalid_rows = 2;
  EXPECT_THROW(plugin_backend(p, "v2"), std::runtime_error);
}

TEST(PaddedEnds, OneCaseInFourPadsBothEndsAndLeavesTheLastSlotUnnamed) {
  const Envelope everything;
  int padded = 0, multi_row = 0;
  for (uint64_t i = 0; i < 200; ++i) {
    const CaseConfig c = draw_backend_case(default_operator(), 7, i, limits::check_cases(2e6), everything);
    if (c.B >= 3 && i % kPaddedEndsEvery == kPaddedEndsEvery - 1) ++multi_row;
    if (!c.pad_ends) continue;
    ++padded;
    EXPECT_EQ(i % kPaddedEndsEvery, static_cast<uint64_t>(kPaddedEndsEvery - 1));
    ASSERT_GE(c.B, 3) << to_string(c);
    EXPECT_EQ(parse_case_config(to_string(c)), c) << "the config line carries padends";
    const CaseTensors t = materialize_replayssm_case(c);
    EXPECT_LT(t.ssm_state_indices.get_linear(0), 0);
    EXPECT_LT(t.ssm_state_indices.get_linear(c.B - 1), 0);
    for (int64_t row = 0; row < c.B; ++row)
      EXPECT_NE(t.ssm_state_indices.get_linear(row), static_cast<double>(c.slots - 1)) << to_string(c);
  }
  EXPECT_EQ(padded, multi_row);
  EXPECT_GE(padded, 200 / kPaddedEndsEvery / 2);
}

TEST(PaddedEnds, AKernelThatWrapsPaddingToTheLastSlotFails) {
  // Slot -1 read as the last slot (an index that wraps): the reference step on the call with
  // every padding row pointed there.
  FunctionBackend wraps("wraps", [](const StepArgs& a) {
    const int64_t rows = a.ssm_state_indices->shape[0];
    HostTensor idx(ScalarType::Int64, {rows});
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t slot = read_index(*a.ssm_state_indices, row);
      idx.set_linear(row, static_cast<double>(slot < 0 ? a.initial_state->shape[0] - 1 : slot));
    }
    StepArgs wrapped = a;
    wrapped.ssm_state_indices = &idx.dl();
    reference::replayssm_step(wrapped);
  });
  const CaseReport r =
      run_vs_reference(parse_case_config("B=4 H=1 HV=2 K=8 V=8 L=4 slots=5 steps=2 pad=0 padends=1 seed=3"), wraps);
  EXPECT_FALSE(r.pass());
}

TEST(Models, PerGpuHeadsAtEachTensorParallelism) {
  const ProductionShape kimi = parse_model("kimi-linear-48b", false);
  EXPECT_EQ(kimi.H, 32);
  EXPECT_EQ(kimi.HV, 32);
  EXPECT_EQ(kimi.K, 128);
  EXPECT_EQ(kimi.V, 128);
  const ProductionShape qwen = parse_model("qwen3-next-80b:tp=8", true);
  EXPECT_EQ(qwen.H, 2);
  EXPECT_EQ(qwen.HV, 4);
  EXPECT_EQ(qwen.model, "qwen3-next-80b:tp=8");
  EXPECT_THROW(parse_model("kimi-linear-48b:tp=3", false), std::invalid_argument);
  EXPECT_THROW(parse_model("kimi-linear-48b:tp=16", false), std::invalid_argument);
  EXPECT_THROW(parse_model("kimi-linear-48b:8", false), std::invalid_argument);
  EXPECT_THROW(parse_model("qwen3-next-80b", false), std::invalid_argument);  // a GDN model for a KDA operator
  try {
    parse_model("llama", false);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("kimi-linear-48b"), std::string::npos) << e.what();
  }
}

TEST(Models, DrawServerBatchesAtTheModelsHeads) {
  const ProductionShape kimi = parse_model("kimi-linear-48b:tp=2", false);
  const Envelope everything;
  int large = 0, padded = 0, single = 0;
  std::set<int64_t> batches;
  for (uint64_t i = 0; i < 400; ++i) {
    const CaseConfig c = draw_backend_case(default_operator(), 11, i, limits::check_cases(2e7), everything, &kimi);
    EXPECT_EQ(c.K, 128);
    EXPECT_EQ(c.V, 128);
    EXPECT_EQ(c.H, 16);
    EXPECT_EQ(c.HV, 16);
    EXPECT_GT(c.slots, c.B);
    EXPECT_LE(c.B, 256);
    if (i % kLargeBatchEvery == 0) {
      EXPECT_GE(c.B, 64);
    }
    large += c.B >= 64;
    single += c.B == 1;
    padded += c.B > 1 && (c.pad_ends || c.pad_fraction > 0);
    batches.insert(c.B);
  }
  EXPECT_GE(large, 100);
  EXPECT_GE(padded, 100);
  EXPECT_GT(single, 0);
  EXPECT_GE(batches.size(), 50u);
}

TEST(Models, ARestrictionToProductionHeadDimsDrawsServerBatchesToo) {
  Envelope k128;
  k128.k_min = k128.k_max = k128.v_min = k128.v_max = 128;
  int large = 0;
  std::set<std::pair<int64_t, int64_t>> layouts;
  for (uint64_t i = 0; i < 200; ++i) {
    const CaseConfig c = draw_backend_case(default_operator(), 5, i, limits::check_cases(2e7), k128);
    large += c.B >= 64;
    layouts.insert({c.H, c.HV});
  }
  EXPECT_GE(large, 50);
  EXPECT_TRUE(layouts.count({32, 32})) << "Kimi's own 32/32";
  EXPECT_TRUE(layouts.count({16, 32})) << "Qwen3-Next's 16/32";
}

}  // namespace
}  // namespace kda::engine
