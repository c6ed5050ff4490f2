// kda_triton_replayssm's contract: the Triton wrapper's KDA path. Each check where this path
// parts from gdn_replayssm's (K17-K19, G22's per-K ring) and the ring variants' checks (G9,
// G28, the pre-decayed block P1-P9) raise their exact messages (written out here) in the
// wrapper's order; the error inputs raise theirs alone and in sets; every catalog entry that
// names the operator is raised by some row or input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <set>

#include "contract/contract_error.hpp"
#include "contract/error_catalog.hpp"
#include "contract/host_tensor.hpp"
#include "contract/scalar_type.hpp"
#include "engine/description/counter_chooser.hpp"
#include "engine/description/operator.hpp"
#include "engine/description/suite_limits.hpp"
#include "operators/gdn_replayssm/contract.hpp"
#include "operators/gdn_replayssm/valid_call.hpp"
#include "operators/kda_triton_replayssm/description.hpp"

namespace kda::test {
namespace {

using engine::BuiltCall;
using engine::CallConfig;
using engine::CallSpec;

// slots 5, HV 4, H 2, L 4, K 32, V 32, B 3; bfloat16 activations and rings, float32 state.
CallConfig example_config() {
  CallConfig c;
  c.K = 32;
  c.V = 32;
  return c;
}
// The pre-decay envelope's example: H = HV = 2 (group 1), otherwise the same.
CallConfig predecay_config() {
  CallConfig c = example_config();
  c.group = 1;
  return c;
}

// The scalars and cache_base, which a CallSpec does not carry.
struct Scalars {
  int64_t nk = 2;
  bool circular_replay = false, prefix_gate_cache = false, predecayed_k_cache = false;
  std::vector<int64_t> cache_base;  // shape; empty: no cache_base
  std::optional<double> lower_bound;
};
// Every pre-decay flag on, with a valid cache_base and lower bound.
Scalars predecayed() {
  Scalars s;
  s.circular_replay = s.prefix_gate_cache = s.predecayed_k_cache = true;
  s.cache_base = {3};
  s.lower_bound = -5.0;
  return s;
}

struct Outcome {
  std::string id, message;
};

Outcome run(const CallSpec& spec, const Scalars& sc = {}) {
  BuiltCall call(spec);
  StepArgs args = engine::step_args(call);
  args.nk = sc.nk;
  args.circular_replay = sc.circular_replay;
  args.prefix_gate_cache = sc.prefix_gate_cache;
  args.predecayed_k_cache = sc.predecayed_k_cache;
  args.lower_bound = sc.lower_bound;
  HostTensor cache_base;
  if (!sc.cache_base.empty()) {
    cache_base = HostTensor::metadata(to_dl(ScalarType::Int32), sc.cache_base, {}, spec.at("mixed_qkv").device, true);
    args.cache_base = &cache_base.dl();
  }
  try {
    validate_triton_replayssm(args, true, spec.backend);
    return {};
  } catch (const ContractError& e) {
    return {e.id(), e.what()};
  }
}

struct Row {
  const char* name;
  CallConfig (*config)();
  Scalars (*scalars)();
  std::function<void(CallSpec&, Scalars&)> edit;
  const char* id;       // "" = accepted
  const char* message;  // the exact text
};

Scalars plain() { return {}; }
void none(CallSpec&, Scalars&) {}
void set_dtype(CallSpec& s, const char* name, ScalarType t) { s.at(name).dtype = to_dl(t); }

const char* const kP1 = "Pre-decayed K requires KDA circular replay with prefix gates.";
const char* const kP8 = "Pre-decayed K inverse-prefix scaling is unsafe: (cache_len - 1) * abs(lower_bound) must be <= 80.";

const std::vector<Row>& rows() {
  static const std::vector<Row> r = {
      {"valid example", example_config, plain, none, "", ""},
      {"valid: circular with prefix gates", example_config, [] { Scalars s = predecayed(); s.predecayed_k_cache = false; return s; }, none, "", ""},
      {"valid: pre-decayed keys", predecay_config, predecayed, none, "", ""},
      {"valid: prefix gates alone (linear)", example_config, [] { Scalars s; s.prefix_gate_cache = true; return s; }, none, "", ""},
      {"K17: the Helion wrapper's flat gate", example_config, plain, [](CallSpec& s, Scalars&) { s.at("a").reshape({3, 128}); },
       "K17", "KDA `a` must have shape (3, 4, 32) (got (3, 128))."},
      {"K17: a GDN gate", example_config, plain, [](CallSpec& s, Scalars&) { s.at("a").reshape({3, 4}); }, "K17",
       "KDA `a` must have shape (3, 4, 32) (got (3, 4))."},
      {"K17 after G16: L = 0 wins", example_config, plain,
       [](CallSpec& s, Scalars&) { s.at("a").reshape({3, 128}); s.at("d_cache").reshape({5, 4, 0, 32}); }, "R4",
       "ReplaySSM cache length must be at least 1."},
      {"K18: flat dt_bias", example_config, plain, [](CallSpec& s, Scalars&) { s.at("dt_bias").reshape({128}); }, "K18",
       "KDA `dt_bias` must have shape (4, 32) (got (128,))."},
      {"K19: a with padded rows", example_config, plain, [](CallSpec& s, Scalars&) { s.at("a").explicit_strides() = {200, 32, 1}; },
       "K19", "KDA `a`/`dt_bias` must be contiguous."},
      {"K19: dt_bias transposed", example_config, plain, [](CallSpec& s, Scalars&) { s.at("dt_bias").explicit_strides() = {1, 4}; },
       "K19", "KDA `a`/`dt_bias` must be contiguous."},
      {"K19 before G19: a strided ring is second", example_config, plain,
       [](CallSpec& s, Scalars&) { s.at("a").explicit_strides() = {200, 32, 1}; s.at("d_cache").explicit_strides() = {1000, 200, 40, 1}; },
       "K19", "KDA `a`/`dt_bias` must be contiguous."},
      {"G22: a GDN g ring", example_config, plain, [](CallSpec& s, Scalars&) { s.at("g_cache").reshape({5, 4, 4}); }, "G22",
       "`g_cache` shape must be (5, 4, 4, 32) (got (5, 4, 4))."},
      {"G9: circular replay without cache_base", example_config, [] { Scalars s; s.circular_replay = true; return s; }, none,
       "G9", "`cache_base` must be a contiguous 1D int32 tensor for circular replay."},
      {"G9 before G10", example_config, [] { Scalars s; s.circular_replay = true; return s; },
       [](CallSpec& s, Scalars&) { s.at("initial_state").explicit_strides() = {4096, 1024, 1, 32}; }, "G9",
       "`cache_base` must be a contiguous 1D int32 tensor for circular replay."},
      {"G28: cache_base too long", example_config, [] { Scalars s = predecayed(); s.predecayed_k_cache = false; s.cache_base = {4}; return s; },
       none, "G28", "`cache_base` must have shape (3,) (got (4,))."},
      {"P1: pre-decay without prefix gates", predecay_config, [] { Scalars s = predecayed(); s.prefix_gate_cache = false; return s; },
       none, "G29", kP1},
      {"P1: pre-decay on a linear ring", predecay_config,
       [] { Scalars s = predecayed(); s.circular_replay = false; s.cache_base = {}; return s; }, none, "G29", kP1},
      {"P1 after G28", predecay_config, [] { Scalars s = predecayed(); s.prefix_gate_cache = false; s.cache_base = {2}; return s; },
       none, "G28", "`cache_base` must have shape (3,) (got (2,))."},
      {"P2: grouped heads", example_config, predecayed, none, "P2", "Pre-decayed K requires one K head per value head."},
      {"P3: bfloat16 state", predecay_config, predecayed,
       [](CallSpec& s, Scalars&) { set_dtype(s, "initial_state", ScalarType::BFloat16); }, "P3",
       "Pre-decayed K requires a float32 checkpoint state."},
      {"P4: float32 d ring, bfloat16 k ring", predecay_config, predecayed,
       [](CallSpec& s, Scalars&) { set_dtype(s, "d_cache", ScalarType::Float32); }, "P4",
       "Pre-decayed K requires matching d/k ring dtypes."},
      {"P5: float16 rings with bfloat16 activations", predecay_config, predecayed,
       [](CallSpec& s, Scalars&) { set_dtype(s, "d_cache", ScalarType::Float16); set_dtype(s, "k_cache", ScalarType::Float16); },
       "P5", "Pre-decayed K d/k rings must use the activation dtype or float32."},
      {"P5 passes: float32 rings", predecay_config, predecayed,
       [](CallSpec& s, Scalars&) { set_dtype(s, "d_cache", ScalarType::Float32); set_dtype(s, "k_cache", ScalarType::Float32); },
       "", ""},
      {"P6: L = 17 with K = 16 at nk = 2 (P6 before G32)", predecay_config, predecayed,
       [](CallSpec& s, Scalars&) {
         s.at("initial_state").reshape({5, 2, 32, 16}); s.at("mixed_qkv").reshape({3, 2 * 2 * 16 + 2 * 32});
         s.at("a").reshape({3, 2, 16}); s.at("dt_bias").reshape({2, 16}); s.at("d_cache").reshape({5, 2, 17, 32});
         s.at("k_cache").reshape({5, 2, 17, 16}); s.at("g_cache").reshape({5, 2, 17, 16}); },
       "P6", "Pre-decayed K requires a cache length between 2 and 16."},
      {"P6: L = 1", predecay_config, predecayed,
       [](CallSpec& s, Scalars&) { s.at("d_cache").reshape({5, 2, 1, 32}); s.at("k_cache").reshape({5, 2, 1, 32});
                                    s.at("g_cache").reshape({5, 2, 1, 32}); },
       "P6", "Pre-decayed K requires a cache length between 2 and 16."},
      {"P7: the softplus gate", predecay_config, [] { Scalars s = predecayed(); s.lower_bound.reset(); return s; }, none, "P7",
       "Pre-decayed K requires a finite negative safe-gate lower bound."},
      {"P7: -0.0", predecay_config, [] { Scalars s = predecayed(); s.lower_bound = -0.0; return s; }, none, "P7",
       "Pre-decayed K requires a finite negative safe-gate lower bound."},
      {"P7: -inf", predecay_config, [] { Scalars s = predecayed(); s.lower_bound = -std::numeric_limits<double>::infinity(); return s; },
       none, "P7", "Pre-decayed K requires a finite negative safe-gate lower bound."},
      {"P8: (4 - 1) * 27 = 81", predecay_config, [] { Scalars s = predecayed(); s.lower_bound = -27.0; return s; }, none, "P8", kP8},
      {"P8 passes: (4 - 1) * 80/3 <= 80", predecay_config,
       [] { Scalars s = predecayed(); s.lower_bound = -80.0 / 3.0; return s; }, none, "", ""},
      {"P8: one ulp past 80/3 (3 * that is 80.00000000000001)", predecay_config,
       [] { Scalars s = predecayed(); s.lower_bound = -std::nextafter(80.0 / 3.0, 100.0); return s; }, none, "P8", kP8},
      {"P9: float16 activations and rings", predecay_config, predecayed,
       [](CallSpec& s, Scalars&) { for (const char* n : {"mixed_qkv", "a", "b", "A_log", "dt_bias", "d_cache", "k_cache"})
                                     set_dtype(s, n, ScalarType::Float16); },
       "P9", "Pre-decayed K with FP16 activations requires an FP32 ring."},
      {"P9 passes: float16 activations, float32 rings", predecay_config, predecayed,
       [](CallSpec& s, Scalars&) { for (const char* n : {"mixed_qkv", "a", "b", "A_log", "dt_bias"}) set_dtype(s, n, ScalarType::Float16);
                                    set_dtype(s, "d_cache", ScalarType::Float32); set_dtype(s, "k_cache", ScalarType::Float32); },
       "", ""},
      {"G31: nk = 3", example_config, [] { Scalars s; s.nk = 3; return s; }, none, "G31", "nk=3 must divide BK=32."},
      {"X-GDN-DEVICE: cursors on cuda:0 (the message names this operator)", example_config, plain,
       [](CallSpec& s, Scalars&) { s.at("write_pos").device = DLDevice{kDLCUDA, 0}; }, "X-GDN-DEVICE",
       "[kda-harness] every tensor of a kda_triton_replayssm call must be on the same device as `mixed_qkv`."},
      {"X-GDN-NK: nk = 0", example_config, [] { Scalars s; s.nk = 0; return s; }, none, "X-GDN-NK",
       "[kda-harness] `nk` must not be 0: it is the number of K tiles (G31 divides BK by it)."},
  };
  return r;
}

Outcome run_row(const Row& row) {
  CallSpec spec = engine::triton_valid_spec(row.config(), true);
  Scalars sc = row.scalars();
  row.edit(spec, sc);
  return run(spec, sc);
}

bool raised_by_op(const CatalogEntry& e) {
  return engine::raises(engine::find_operator("kda_triton_replayssm"), e.id);
}

TEST(KdaTritonContract, EachRowRaisesItsExactError) {
  for (const Row& row : rows()) {
    const Outcome o = run_row(row);
    EXPECT_EQ(o.id, row.id) << row.name;
    EXPECT_EQ(o.message, row.message) << row.name;
    if (!o.id.empty()) {
      EXPECT_EQ(catalog_ids_matching(o.message), std::vector<std::string>{o.id}) << row.name;
      EXPECT_TRUE(raised_by_op(*find_catalog_entry(o.id))) << o.id << " does not list kda_triton_replayssm";
    }
  }
}

// The configs the error inputs must hold on: the sizes' edges a sample space may reach.
std::vector<CallConfig> input_configs() {
  std::vector<CallConfig> configs(7, example_config());
  configs[1].B = 0;
  configs[2].B = 1, configs[2].H = 1, configs[2].group = 1, configs[2].V = 1, configs[2].L = 1, configs[2].slots = 1;
  configs[3].K = 24, configs[3].V = 24, configs[3].unit_stride = 3, configs[3].null_strides = false;
  configs[4].envelope_pad = 5, configs[4].force_flush = false;
  configs[5].H = 1, configs[5].group = 4, configs[5].K = 17;
  configs[6].device = DLDevice{kDLCUDA, 0}, configs[6].backend = Backend::Cuda;
  return configs;
}

const std::vector<engine::ErrorInput>& inputs() { return engine::kda_triton_replayssm_operator().error_inputs(); }

TEST(KdaTritonErrorInputs, EachRaisesItsExpectedError) {
  std::vector<int> applied(inputs().size(), 0);
  for (const CallConfig& c : input_configs())
    for (std::size_t i = 0; i < inputs().size(); ++i)
      for (uint32_t variant = 0; variant < 30; ++variant) {
        engine::MutationTarget t{engine::triton_valid_spec(c, true), c.dims(), c.B};
        const std::optional<engine::Expected> want = inputs()[i].apply(t, variant);
        if (!want) continue;
        ++applied[i];
        const Outcome o = run(t.spec);
        EXPECT_EQ(o.id, want->id) << inputs()[i].label << "#" << variant << " on " << engine::to_string(c);
        EXPECT_EQ(o.message, want->message) << inputs()[i].label << "#" << variant << " on " << engine::to_string(c);
      }
  for (std::size_t i = 0; i < inputs().size(); ++i) EXPECT_GT(applied[i], 0) << inputs()[i].label << " never applied";
}

// Sets of inputs: the earliest applied input's error wins.
TEST(KdaTritonErrorInputs, SetsRaiseTheEarliestAppliedError) {
  for (const CallConfig& c : input_configs())
    for (uint64_t n = 0; n < 300; ++n) {
      engine::CounterChooser chooser(11, engine::stream::kContractCalls, n);
      const std::vector<engine::Mutation> set = engine::sample_mutations(chooser, inputs().size(), 4);
      engine::MutationTarget t{engine::triton_valid_spec(c, true), c.dims(), c.B};
      const engine::MutationResult r = engine::apply_mutations(inputs(), t, set);
      const Outcome o = run(t.spec);
      const std::string what = engine::describe(inputs(), set) + " on " + engine::to_string(c);
      EXPECT_EQ(o.id, r.expected ? r.expected->id : "") << what;
      EXPECT_EQ(o.message, r.expected ? r.expected->message : "") << what;
    }
}

// Every entry naming the operator is raised by a row or an input, except G30 (cannot fire),
// X-GDN-GATE-STRIDES (K19 comes first) and the runtime values (check_runtime_values, whose own
// tests cover them for every operator).
TEST(KdaTritonContract, EveryCatalogEntryOfTheOperatorIsRaised) {
  std::set<std::string> raised;
  for (const Row& row : rows()) raised.insert(run_row(row).id);
  for (const engine::ErrorInput& in : inputs())
    for (const CallConfig& c : input_configs()) {
      engine::MutationTarget t{engine::triton_valid_spec(c, true), c.dims(), c.B};
      if (in.apply(t, 0)) raised.insert(run(t.spec).id);
    }
  const std::set<std::string> unraised{"G30", "X-GDN-GATE-STRIDES", error_id::kSlotIndex, error_id::kWritePos,
                                       error_id::kCacheBase, error_id::kDuplicateSlot};
  for (const CatalogEntry& e : error_catalog()) {
    if (!raised_by_op(e) || unraised.count(e.id)) continue;
    EXPECT_TRUE(raised.count(e.id)) << "nothing raises " << e.id;
  }
}

// Sampled valid calls validate with their dims, off the powers of two too.
TEST(KdaTritonContract, SampledValidCallsGiveTheirDims) {
  const engine::OperatorDescription& op = engine::kda_triton_replayssm_operator();
  int off_power = 0;
  for (uint64_t n = 0; n < 300; ++n) {
    engine::CounterChooser ch(3, engine::stream::kContractCalls, n);
    const CallConfig c = op.sample_call(ch, engine::limits::contract_calls());
    BuiltCall call(op.valid_spec(c));
    EXPECT_EQ(op.validate(engine::step_args(call), Backend::Any), op.dims_of(c)) << engine::to_string(c);
    off_power += (c.K & (c.K - 1)) != 0;
  }
  EXPECT_GT(off_power, 0);
}

}  // namespace
}  // namespace kda::test
