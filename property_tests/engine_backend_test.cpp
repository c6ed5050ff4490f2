// The engine's backend seam: the registry, plugin loading and the description checks, a
// plugin's refusal mapped onto the catalog, the refusal check, and envelopes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <set>

#include "contract/catalog_message.hpp"
#include "contract/contract_error.hpp"
#include "contract/error_catalog.hpp"
#include "contract/tensor_view.hpp"
#include "engine/backends/backend.hpp"
#include "engine/backends/function_backend.hpp"
#include "engine/backends/plugin_backend.hpp"
#include "engine/description/operator.hpp"
#include "engine/description/restriction.hpp"
#include "engine/driver/run_case.hpp"
#include "engine/driver/suites.hpp"
#include "engine/oracles/refusal.hpp"
#include "operators/kda_replayssm/reference_step.hpp"
#include "operators/replayssm_family/case_tensors.hpp"

namespace kda::engine {
namespace {

constexpr const char* kSmall = "B=3 H=2 HV=4 K=16 V=16 L=4 slots=5 steps=1 seed=9";

TEST(BackendRegistry, KnowsEveryKindAndRefusesUnknownNames) {
  EXPECT_EQ(make_backend("reference")->name(), "reference");
  EXPECT_EQ(make_backend("reference-double")->name(), "reference-double");
  EXPECT_THROW(make_backend("triton"), std::invalid_argument);
  EXPECT_THROW(make_backend("plugin:/no/such/lib.so"), std::runtime_error);
  EXPECT_GE(backend_kinds().size(), 4u);
}

TEST(PluginBackend, LoadsTheCpuExampleWithItsDescription) {
  const auto b = make_backend(std::string("plugin:") + KDA_CPU_EXAMPLE_PLUGIN);
  EXPECT_EQ(b->name(), "plugin:cpu-example");
  EXPECT_EQ(b->spec(), std::string("plugin:") + KDA_CPU_EXAMPLE_PLUGIN);
  EXPECT_EQ(b->profile(), Profile::Helion);
  EXPECT_EQ(b->envelope().k_max, 256);
  CaseTensors t = materialize_replayssm_case(parse_case_config(kSmall));
  EXPECT_NO_THROW(b->step(t.args()));
}

TEST(PluginBackend, AContractViolationIsTheCatalogError) {
  const auto b = make_backend(std::string("plugin:") + KDA_CPU_EXAMPLE_PLUGIN);
  CaseTensors t = materialize_replayssm_case(parse_case_config(kSmall));
  // A k_cache with HV heads where H != HV: the seed's error (R6).
  HostTensor wrong(ScalarType::BFloat16, {5, 4, 4, 16});
  StepArgs a = t.args();
  a.k_cache = &wrong.dl();
  try {
    b->step(a);
    FAIL() << "accepted a k_cache with HV heads";
  } catch (const ContractError& e) {
    EXPECT_EQ(e.id(), "R6");
    EXPECT_EQ(e.what(), catalog_message("R6"));
  }
  EXPECT_EQ(refusal_problem(*b, a), "");
}

TEST(PluginBackend, ARefusalOfItsOwnIsABackendRefusal) {
  const auto b = make_backend(std::string("plugin:") + KDA_CPU_EXAMPLE_PLUGIN);
  CaseConfig c = parse_case_config(kSmall);
  c.K = 512;  // beyond the example's envelope (K <= 256)
  EXPECT_NE(b->envelope().excludes(c), "");
  CaseTensors t = materialize_replayssm_case(c);
  EXPECT_THROW(b->step(t.args()), BackendRefusal);
  EXPECT_EQ(refusal_problem(*b, t.args()), "");
}

TEST(PluginBackend, ADescriptionWithAnotherAbiVersionIsRefused) {
  kda_plugin p{};
  p.abi_version = KDA_PLUGIN_ABI_VERSION + 1;
  p.op = "kda_replayssm";
  p.step = [](void*, const kda_call*) -> int32_t { return 0; };
  p.last_error = [](void*) -> const char* { return ""; };
  p.envelope = {KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_INDICES,
                1, 256, 1, 256, 0, 1, kDLCPU};
  EXPECT_THROW(plugin_backend(p, "test"), std::runtime_error);
  p.abi_version = KDA_PLUGIN_ABI_VERSION;
  p.op = "kda_something_else";
  EXPECT_THROW(plugin_backend(p, "test"), std::runtime_error);
  p.op = "kda_replayssm";
  EXPECT_NO_THROW(plugin_backend(p, "test"));
}

TEST(Refusal, ComputingOrWritingBeforeRaisingIsCaught) {
  CaseTensors t = materialize_replayssm_case(parse_case_config(kSmall));
  FunctionBackend computes("computes", [](const StepArgs& a) { reference::replayssm_step(a); });
  EXPECT_NE(refusal_problem(computes, t.args()), "");
  FunctionBackend writes_then_raises("writes", [](const StepArgs& a) {
    std::memset(a.out->data, 0, 2);
    throw BackendRefusal("no");
  });
  EXPECT_NE(refusal_problem(writes_then_raises, t.args()).find("out"), std::string::npos);
}

TEST(Footprint, AStepThatWritesAnInputIsCaught) {
  FunctionBackend writes_input("writes-input", [](const StepArgs& a) {
    reference::replayssm_step(a);
    static_cast<unsigned char*>(a.mixed_qkv->data)[a.mixed_qkv->byte_offset] ^= 1;
  });
  const CaseReport r = run_vs_reference(parse_case_config("B=2 H=1 HV=1 K=8 V=8 L=4 slots=2 steps=2 pad=0 seed=3"),
                                        writes_input);
  EXPECT_FALSE(r.pass());
  EXPECT_NE(r.failure.find("mixed_qkv[0, 0] (an input of the step) changed from"), std::string::npos) << r.failure;
  EXPECT_NE(r.failure.find("a step may not write its inputs"), std::string::npos) << r.failure;
}

TEST(Envelope, FitMovesACaseInsideAndJustOutsideLiesOutside) {
  Envelope e;
  e.state_dtypes = KDA_DT_FLOAT32;
  e.out_dtypes = KDA_DT_BFLOAT16 | KDA_DT_FLOAT16;
  e.index_dtypes = KDA_DT_INT32;
  e.k_min = 16, e.k_max = 128, e.v_max = 64;
  e.strided = false;
  CaseConfig c = parse_case_config("B=2 H=1 HV=1 K=256 V=128 L=4 slots=2 state=bf16 out=f32 idx=i64 env=1");
  EXPECT_NE(e.excludes(c), "");
  const auto in = e.fit(c);
  ASSERT_TRUE(in.has_value());
  EXPECT_EQ(e.excludes(*in), "");
  EXPECT_EQ(in->K, 128);
  EXPECT_EQ(in->V, 64);
  EXPECT_FALSE(in->envelope);
  const auto outside = e.just_outside(*in);
  EXPECT_GE(outside.size(), 6u);
  for (const CaseConfig& o : outside) {
    EXPECT_NE(e.excludes(o), "") << to_string(o);
    EXPECT_TRUE(is_valid_config(o)) << to_string(o);
  }
  Envelope empty;
  empty.out_dtypes = 0;
  EXPECT_FALSE(empty.fit(c).has_value());
}

// A plugin's ring dtypes and longest ring are ways out of its envelope only for an operator
// that has rings: for the plain packed decode a "call outside" by ring dtype or L would be a
// valid call the plugin rightly computes.
TEST(Envelope, RingFieldsBoundOnlyAnOperatorWithRings) {
  kda_envelope declared{KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_FLOAT32, KDA_DT_ALL_FLOATS, KDA_DT_ALL_INDICES,
                        1, 256, 1, 256, 4, 1, kDLCPU};
  const CaseConfig c = parse_case_config("B=2 H=1 HV=1 K=16 V=16 L=4 slots=2 ring=f32");
  const auto ways_out = [&](const OperatorDescription& op) {
    std::set<std::string> why;
    for (const CaseConfig& o : Envelope::from_c(declared, op).just_outside(c)) why.insert(Envelope::from_c(declared, op).excludes(o));
    return why;
  };
  const auto ring_or_l = [](const std::set<std::string>& why) {
    return std::count_if(why.begin(), why.end(),
                         [](const std::string& w) { return w.rfind("ring dtype", 0) == 0 || w.rfind("L=", 0) == 0; });
  };
  EXPECT_GE(ring_or_l(ways_out(default_operator())), 2);
  EXPECT_EQ(ring_or_l(ways_out(find_operator("kda_packed_decode"))), 0);
  EXPECT_EQ(Envelope::from_c(declared, find_operator("kda_packed_decode")).excludes(parse_case_config("L=8 ring=bf16")), "");
}

// Prefix gates and pre-decayed keys are ways out for the operator whose calls have them as
// variants (kda_triton_replayssm): a plugin declaring linear and circular rings alone (as one
// written before the bits existed does) must refuse them. gdn_replayssm accepts
// prefix_gate_cache and ignores it, so the same declaration serves that flag there.
TEST(Envelope, PrefixGatesAndPredecayedKeysBoundOnlyTheOperatorWhoseVariantsTheyAre) {
  kda_plugin p{};
  p.envelope = {KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_INDICES,
                1, 256, 1, 256, 0, 1, kDLCPU};
  p.ring_modes = KDA_RING_LINEAR | KDA_RING_CIRCULAR;
  const CaseConfig c = parse_case_config("B=2 H=1 HV=1 K=32 V=16 L=4 slots=2 circ=1");
  CaseConfig prefix = c, predecayed = c;
  prefix.prefix_gates = true;
  predecayed.predecayed_keys = true;  // the first way out it takes (a legal call sets pgc=1 too)

  p.op = "kda_triton_replayssm";
  Envelope e = Envelope::of_plugin(p);
  EXPECT_EQ(e.excludes(c), "");
  EXPECT_EQ(e.excludes(prefix), "prefix gates (pgc=1) on a backend without them");
  EXPECT_EQ(e.excludes(predecayed), "pre-decayed keys (pdk=1) on a backend without them");
  std::set<std::string> why;
  for (const CaseConfig& o : e.just_outside(c)) why.insert(e.excludes(o));
  EXPECT_TRUE(why.count("prefix gates (pgc=1) on a backend without them"));
  EXPECT_TRUE(why.count("pre-decayed keys (pdk=1) on a backend without them"));
  EXPECT_FALSE(e.fit(prefix)->prefix_gates);
  EXPECT_EQ(e.describe(find_operator("kda_triton_replayssm")).find("prefix-gates"), std::string::npos);
  p.ring_modes = KDA_RING_ALL;
  e = Envelope::of_plugin(p);
  EXPECT_EQ(e.excludes(predecayed), "");
  EXPECT_NE(e.describe(find_operator("kda_triton_replayssm")).find("rings {linear,circular,prefix-gates,predecayed-keys}"),
            std::string::npos);

  p.op = "gdn_replayssm";
  p.ring_modes = KDA_RING_LINEAR | KDA_RING_CIRCULAR;
  e = Envelope::of_plugin(p);
  EXPECT_EQ(e.excludes(prefix), "");
  EXPECT_NE(e.describe(find_operator("gdn_replayssm")).find("rings {linear,circular}"), std::string::npos);
}

// An index dtype is a way out of the envelope only for an operator whose cases can have it:
// gdn_replayssm's cases are int32 whatever the config says (its contract refuses int64), so
// a plugin declaring int32 alone must not be asked to refuse an int64 config, which reaches
// it as an int32 call.
TEST(Envelope, IndexDtypesBoundOnlyThoseTheOperatorsCasesHave) {
  kda_envelope declared{KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_INT32,
                        1, 256, 1, 256, 0, 1, kDLCPU};
  const CaseConfig c = parse_case_config("B=2 H=1 HV=1 K=32 V=16 L=4 slots=2 idx=i32");
  const auto index_ways_out = [&](const OperatorDescription& op) {
    const Envelope e = Envelope::from_c(declared, op);
    const auto outside = e.just_outside(c);
    return std::count_if(outside.begin(), outside.end(),
                         [&](const CaseConfig& o) { return e.excludes(o).rfind("index dtype", 0) == 0; });
  };
  EXPECT_EQ(index_ways_out(default_operator()), 1);
  EXPECT_EQ(index_ways_out(find_operator("gdn_replayssm")), 0);
}

// ... but the envelope still describes what the backend declared: int32 alone, not the int64
// that gdn_replayssm's cases never have.
TEST(Envelope, DescribesTheIndexDtypesAsDeclared) {
  kda_envelope declared{KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_INT32,
                        1, 256, 1, 256, 0, 1, kDLCPU};
  for (const char* name : {"kda_replayssm", "gdn_replayssm"}) {
    const std::string line = Envelope::from_c(declared, find_operator(name)).describe();
    EXPECT_NE(line.find(" idx {int32} "), std::string::npos) << name << ": " << line;
  }
}

// A backend of gdn_replayssm made of a step function, with the envelope SGLang's Triton kernel
// declares (K >= 32, int32 indices, compact tensors) unless told.
class GdnFunctionBackend final : public Backend {
 public:
  using Step = std::function<void(const StepArgs& host)>;
  GdnFunctionBackend(Step step, Envelope envelope) : step_(std::move(step)), envelope_(envelope) {}
  std::string name() const override { return "gdn-function"; }
  const Envelope& envelope() const override { return envelope_; }
  Profile profile() const override { return Profile::Triton; }
  const OperatorDescription& op() const override { return find_operator("gdn_replayssm"); }
  void step(const StepArgs& host) override { step_(host); }

 private:
  Step step_;
  Envelope envelope_;
};

Envelope triton_gdn_envelope() {
  kda_envelope declared{KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_INT32,
                        32, int64_t{1} << 20, 1, int64_t{1} << 20, 0, 0, kDLCPU};
  Envelope e = Envelope::from_c(declared, find_operator("gdn_replayssm"));
  e.ring_modes = KDA_RING_ALL;  // both ring variants: the only ways out are the declared sizes and layouts
  return e;
}

// Issue 34: under a restriction to float32, a K >= 32 compact-only GDN backend was asked to
// refuse "outside the envelope: " (no reason): K = 16 was the way out, and gdn_replayssm's cases
// lift K to 32, back inside. Every outside case must name what lies outside, and exist only
// where something does.
TEST(Suites, AnOutsideCaseExistsOnlyWhereSomethingLiesOutsideAndSaysWhat) {
  SuiteDraws draws;  // seed 1: envelope case 9 drew B = 1 and one slot, where env=1 was compact
  draws.restriction = parse_restriction("act=f32 state=f32 ring=f32 out=f32");
  const auto reasons = [&](const Envelope& e, std::string_view suite_name, int n) {
    const GdnFunctionBackend b([](const StepArgs&) {}, e);
    std::set<std::string> why;
    for (int64_t i = 0; i < n; ++i) {
      const PlannedCase p = plan_suite_case(*find_suite(suite_name), b, draws, i);
      if (p.kind != PlannedCase::Kind::OutsideEnvelope) continue;
      const std::string reason = e.excludes(p.config);
      EXPECT_NE(reason, "") << suite_name << " case " << i << ": " << planned_line(p, b.op());
      EXPECT_EQ(p.call, "outside the envelope: " + reason) << suite_name << " case " << i;
      if (reason.rfind("strided layouts", 0) == 0) {  // really strided: not a compact call over one slot
        EXPECT_FALSE(is_contiguous(materialize_replayssm_case(p.config).initial_state.dl())) << planned_line(p, b.op());
      }
      why.insert(reason);
    }
    return why;
  };
  const Envelope compact_only = triton_gdn_envelope();
  EXPECT_EQ(reasons(compact_only, "envelope", 12), std::set<std::string>{"strided layouts (env=1) on a compact-only backend"});
  EXPECT_EQ(reasons(compact_only, "kernel", 40), std::set<std::string>{"strided layouts (env=1) on a compact-only backend"});
  // Strided too: nothing of a gdn_replayssm case lies outside, so no case asks a refusal.
  Envelope strided = compact_only;
  strided.strided = true;
  EXPECT_TRUE(reasons(strided, "envelope", 12).empty());
  EXPECT_TRUE(reasons(strided, "kernel", 40).empty());
  const GdnFunctionBackend b([](const StepArgs&) {}, strided);
  EXPECT_EQ(plan_suite_case(*find_suite("envelope"), b, draws, 0).kind, PlannedCase::Kind::NothingToTest);
  // K >= 64: K = 32 stays outside, and says so.
  Envelope k64 = strided;
  k64.k_min = 64;
  EXPECT_EQ(reasons(k64, "envelope", 12), std::set<std::string>{"K=32 outside 64..1048576"});
}

// Issue 34: an error input that only a harness extension refuses (G12-K0: the wrapper's
// `q_dim % K` raises ZeroDivisionError; G16-short: SGLang's `d_cache.shape[2]` raises
// IndexError) cannot be refused with the harness's own "[kda-harness]" text by a real
// kernel: any refusal that writes nothing passes, and the note says which. A documented
// input still wants the exact message.
TEST(Suites, KernelContractAsksAnyRefusalWhereOnlyAnExtensionRefuses) {
  const OperatorDescription& gdn = find_operator("gdn_replayssm");
  // SGLang-like: the documented checks with their messages, a framework error elsewhere.
  const auto wrapper_like = [&gdn](const StepArgs& a) {
    try {
      gdn.validate(a, kda::Backend::Any);
    } catch (const ContractError& e) {
      const CatalogEntry* entry = find_catalog_entry(e.id());
      if (entry && entry->is_extension()) throw BackendRefusal("IndexError: tuple index out of range");
      throw;
    }
  };
  GdnFunctionBackend sglang(wrapper_like, triton_gdn_envelope());
  GdnFunctionBackend accepts_all([](const StepArgs&) {}, triton_gdn_envelope());
  GdnFunctionBackend wrong_text([](const StepArgs&) { throw BackendRefusal("ValueError: bad input"); }, triton_gdn_envelope());
  const SuiteInfo& suite = *find_suite("kernel-contract");
  SuiteDraws draws;
  std::set<std::string> any_message_seen, exact_seen;
  for (int64_t i = 0; i < 40; ++i) {
    const PlannedCase p = plan_suite_case(suite, sglang, draws, i);
    ASSERT_EQ(p.kind, PlannedCase::Kind::ErrorInput) << p.problem;
    const std::string label = p.call.substr(std::string_view("error input ").size());
    const bool extension = label == "G12-K0" || label == "G16-short";
    const CaseReport r = run_suite_case(suite, sglang, draws, i);
    EXPECT_TRUE(r.pass()) << label << ": " << r.failure;
    if (extension) {
      EXPECT_NE(r.note.find("refused with 'IndexError: tuple index out of range', nothing written (any message"),
                std::string::npos)
          << label << ": " << r.note;
      any_message_seen.insert(label);
    } else {
      exact_seen.insert(label);
    }
    const CaseReport accepted = run_suite_case(suite, accepts_all, draws, i);
    EXPECT_FALSE(accepted.pass()) << label;
    EXPECT_NE(accepted.failure.find(extension ? "expected a refusal, any message" : "expected ValueError: "),
              std::string::npos)
        << label << ": " << accepted.failure;
    EXPECT_EQ(run_suite_case(suite, wrong_text, draws, i).pass(), extension) << label;
  }
  EXPECT_EQ(any_message_seen, (std::set<std::string>{"G12-K0", "G16-short"}));
  EXPECT_GE(exact_seen.size(), 20u);
}

}  // namespace
}  // namespace kda::engine
