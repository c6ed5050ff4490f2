// gdn_replayssm's contract: each G check's exact message on a hand-made call (the expected
// texts written out here, the spec's examples among them), the order where two checks fail,
// the harness extensions, the runtime values, the valid calls' dims, and the error inputs
// alone and in sets. Every catalog entry of the operator must be raised by some row.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
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
#include "operators/gdn_replayssm/description.hpp"
#include "operators/gdn_replayssm/error_inputs.hpp"
#include "operators/gdn_replayssm/valid_call.hpp"

namespace kda::test {
namespace {

using engine::BuiltCall;
using engine::CallConfig;
using engine::CallSpec;

// The spec's example call: slots 5, HV 4, H 2, L 4, K 32, V 32, B 3.
CallConfig example_config() {
  CallConfig c;
  c.K = 32;
  c.V = 32;
  return c;
}

constexpr DLDevice kCuda0{kDLCUDA, 0};

// The scalars and cache_base, which a CallSpec does not carry.
struct Scalars {
  int64_t nk = 2;
  bool circular_replay = false, prefix_gate_cache = false, predecayed_k_cache = false;
  std::vector<int64_t> cache_base;  // shape; empty: no cache_base
  bool cache_base_int64 = false;
  std::optional<DLDevice> cache_base_device;  // nullopt: mixed_qkv's
};

struct Outcome {
  std::string id, message;
  Dims dims;
};

Outcome run(const CallSpec& spec, const Scalars& sc = {}) {
  BuiltCall call(spec);
  StepArgs args = engine::step_args(call);
  args.nk = sc.nk;
  args.circular_replay = sc.circular_replay;
  args.prefix_gate_cache = sc.prefix_gate_cache;
  args.predecayed_k_cache = sc.predecayed_k_cache;
  HostTensor cache_base;
  if (!sc.cache_base.empty()) {
    cache_base = HostTensor::metadata(to_dl(sc.cache_base_int64 ? ScalarType::Int64 : ScalarType::Int32),
                                      sc.cache_base, {}, sc.cache_base_device.value_or(spec.at("mixed_qkv").device), true);
    args.cache_base = &cache_base.dl();
  }
  try {
    return {"", "", validate_gdn_replayssm(args, spec.backend)};
  } catch (const ContractError& e) {
    return {e.id(), e.what(), {}};
  }
}

struct Row {
  const char* name;
  std::function<void(CallSpec&, Scalars&)> edit;  // on the example call
  const char* id;       // "" = accepted
  const char* message;  // nullptr: the catalog's fixed message for id
};

void none(CallSpec&, Scalars&) {}

// X-GDN-DEVICE names the operator that raises it (kda_triton_replayssm's own in its test).
const char* const kDeviceMessage = "[kda-harness] every tensor of a gdn_replayssm call must be on the same device as `mixed_qkv`.";

const std::vector<Row>& rows() {
  static const std::vector<Row> r = {
      {"valid example", none, "", ""},
      {"G1: 3-D mixed_qkv", [](CallSpec& s, Scalars&) { s.at("mixed_qkv").reshape({3, 1, 256}); }, "G1",
       "`mixed_qkv` must be 2D (got ndim=3)."},
      {"G1: 0-d mixed_qkv", [](CallSpec& s, Scalars&) { s.at("mixed_qkv").reshape({}); }, "G1",
       "`mixed_qkv` must be 2D (got ndim=0)."},
      {"G2: last stride 2", [](CallSpec& s, Scalars&) { s.at("mixed_qkv").explicit_strides() = {512, 2}; }, "V2",
       "`mixed_qkv` must be contiguous in the last dim."},
      {"G2 passes: padded rows", [](CallSpec& s, Scalars&) { s.at("mixed_qkv").explicit_strides() = {512, 1}; }, "", ""},
      {"G3: 3-D b", [](CallSpec& s, Scalars&) { s.at("b").reshape({3, 4, 1}); }, "G3", "`b` must be 2D (got b.ndim=3)."},
      {"G4: 2-D A_log", [](CallSpec& s, Scalars&) { s.at("A_log").reshape({4, 1}); }, "G4", "`A_log` must be a 1D tensor."},
      {"G5: 3-D state", [](CallSpec& s, Scalars&) { s.at("initial_state").reshape({5, 4, 1024}); }, "G5",
       "`initial_state` must be 4D (got ndim=3)."},
      {"G6: token slice of a [B, 2, HV, V] buffer", [](CallSpec& s, Scalars&) { s.at("out").explicit_strides() = {256, 128, 32, 1}; },
       "V8", "`out` must be contiguous."},
      {"G6 passes: any stride on the size-1 token dim", [](CallSpec& s, Scalars&) { s.at("out").explicit_strides() = {128, 99, 32, 1}; },
       "", ""},
      {"G6: out strided over V", [](CallSpec& s, Scalars&) { s.at("out").explicit_strides() = {256, 128, 64, 2}; }, "V8",
       "`out` must be contiguous."},
      {"G7: int64 cursors", [](CallSpec& s, Scalars&) { s.at("write_pos").dtype = to_dl(ScalarType::Int64); }, "G7",
       "`write_pos` must be a contiguous 1D int32 tensor."},
      {"G7: strided cursors (KDA's R1 accepts them)", [](CallSpec& s, Scalars&) { s.at("write_pos").explicit_strides() = {2}; },
       "G7", "`write_pos` must be a contiguous 1D int32 tensor."},
      {"G8: bool-like force_flush", [](CallSpec& s, Scalars&) { s.at("force_flush").dtype = {kDLUInt, 8, 1}; }, "G8",
       "`force_flush` must be a contiguous 1D int32 tensor or None."},
      {"G8 passes: force_flush absent", [](CallSpec& s, Scalars&) { s.erase("force_flush"); }, "", ""},
      {"G9: circular replay without cache_base", [](CallSpec&, Scalars& c) { c.circular_replay = true; }, "G9",
       "`cache_base` must be a contiguous 1D int32 tensor for circular replay."},
      {"G9: int64 cache_base", [](CallSpec&, Scalars& c) { c.circular_replay = true; c.cache_base = {3}; c.cache_base_int64 = true; },
       "G9", "`cache_base` must be a contiguous 1D int32 tensor for circular replay."},
      {"G9 passes without circular replay: cache_base not read",
       [](CallSpec&, Scalars& c) { c.cache_base = {7, 7}; c.cache_base_int64 = true; }, "", ""},
      {"G10: state stored [.., K, V]", [](CallSpec& s, Scalars&) { s.at("initial_state").explicit_strides() = {4096, 1024, 1, 32}; },
       "G10", "`initial_state` must be contiguous in its [HV, V, K] inner dimensions; an arbitrary slot stride is supported."},
      {"G10: a size-1 dim's stride is not excused", [](CallSpec& s, Scalars&) {
         s.at("initial_state").reshape({5, 4, 1, 32}).strides = {128, 32, 64, 1};
         s.at("mixed_qkv").reshape({3, 132}); s.at("d_cache").reshape({5, 4, 4, 1}); s.at("out").reshape({3, 1, 4, 1}); },
       "G10", "`initial_state` must be contiguous in its [HV, V, K] inner dimensions; an arbitrary slot stride is supported."},
      {"G10 passes: padded slot stride", [](CallSpec& s, Scalars&) { s.at("initial_state").explicit_strides()[0] = 5000; }, "", ""},
      {"G11: v only", [](CallSpec& s, Scalars&) { s.at("mixed_qkv").reshape({3, 128}); }, "V20",
       "Invalid packed `mixed_qkv` last dim=128 for HV=4, V=32."},
      {"G11: odd q|k part", [](CallSpec& s, Scalars&) { s.at("mixed_qkv").reshape({3, 257}); }, "V20",
       "Invalid packed `mixed_qkv` last dim=257 for HV=4, V=32."},
      {"G12: q size 65", [](CallSpec& s, Scalars&) { s.at("mixed_qkv").reshape({3, 258}); }, "G12",
       "Invalid packed `mixed_qkv` last dim=258 for HV=4, V=32, K=32."},
      {"G13: H = 3 does not divide HV = 4", [](CallSpec& s, Scalars&) { s.at("mixed_qkv").reshape({3, 320}); }, "V22",
       "Invalid head config inferred from mixed_qkv: H=3, HV=4."},
      {"G14: b for H heads", [](CallSpec& s, Scalars&) { s.at("b").reshape({3, 2}); }, "G14", "`b` must have contiguous shape (3, 4)."},
      {"G14: b every other column", [](CallSpec& s, Scalars&) { s.at("b").explicit_strides() = {8, 2}; }, "G14",
       "`b` must have contiguous shape (3, 4)."},
      {"G14 passes: b with padded rows", [](CallSpec& s, Scalars&) { s.at("b").explicit_strides() = {16, 1}; }, "", ""},
      {"G15: A_log for 8 heads", [](CallSpec& s, Scalars&) { s.at("A_log").reshape({8}); }, "G15", "`A_log` must have contiguous shape (4,)."},
      {"G15: strided A_log", [](CallSpec& s, Scalars&) { s.at("A_log").explicit_strides() = {2}; }, "G15",
       "`A_log` must have contiguous shape (4,)."},
      {"G16: L = 0", [](CallSpec& s, Scalars&) { s.at("d_cache").reshape({5, 4, 0, 32}); }, "R4",
       "ReplaySSM cache length must be at least 1."},
      {"G17: a [B, HV, 1] (the spec's example)", [](CallSpec& s, Scalars&) { s.at("a").reshape({3, 4, 1}); }, "G17",
       "GDN `a` must have shape (3, 4) (got (3, 4, 1))."},
      {"G17: a KDA-shaped gate", [](CallSpec& s, Scalars&) { s.at("a").reshape({3, 128}); }, "G17",
       "GDN `a` must have shape (3, 4) (got (3, 128))."},
      {"G18: 0-d dt_bias (the spec's example)", [](CallSpec& s, Scalars&) { s.at("dt_bias").reshape({}); }, "G18",
       "GDN `dt_bias` must have shape (4,) (got ())."},
      {"G18: a KDA-shaped bias", [](CallSpec& s, Scalars&) { s.at("dt_bias").reshape({4, 32}); }, "G18",
       "GDN `dt_bias` must have shape (4,) (got (4, 32))."},
      {"G19: slot-padded d ring", [](CallSpec& s, Scalars&) { s.at("d_cache").explicit_strides()[0] = 600; }, "G19",
       "ReplaySSM ring caches must be contiguous."},
      {"G19: strided g ring", [](CallSpec& s, Scalars&) { s.at("g_cache").explicit_strides() = {32, 8, 2}; }, "G19",
       "ReplaySSM ring caches must be contiguous."},
      {"G20: d ring with H heads", [](CallSpec& s, Scalars&) { s.at("d_cache").reshape({5, 2, 4, 32}); }, "G20",
       "`d_cache` shape must be (5, 4, 4, 32) (got (5, 2, 4, 32))."},
      {"G20: d ring with fewer slots than the state", [](CallSpec& s, Scalars&) { s.at("d_cache").reshape({4, 4, 4, 32}); }, "G20",
       "`d_cache` shape must be (5, 4, 4, 32) (got (4, 4, 4, 32))."},
      {"G21: k ring with HV heads (the spec's example)", [](CallSpec& s, Scalars&) { s.at("k_cache").reshape({5, 4, 4, 32}); },
       "G21", "`k_cache` shape must be (5, 2, 4, 32) (got (5, 4, 4, 32))."},
      {"G22: a KDA-shaped g ring", [](CallSpec& s, Scalars&) { s.at("g_cache").reshape({5, 4, 4, 32}); }, "G22",
       "`g_cache` shape must be (5, 4, 4) (got (5, 4, 4, 32))."},
      {"G23: bf16 g ring (the spec's example)", [](CallSpec& s, Scalars&) { s.at("g_cache").dtype = to_dl(ScalarType::BFloat16); },
       "G23", "`g_cache` must be float32 (got torch.bfloat16)."},
      {"G23: float64 g ring", [](CallSpec& s, Scalars&) { s.at("g_cache").dtype = {kDLFloat, 64, 1}; }, "G23",
       "`g_cache` must be float32 (got torch.float64)."},
      {"G24: out without the token dim", [](CallSpec& s, Scalars&) { s.at("out").reshape({3, 4, 32}); }, "G24",
       "`out` must have shape (3, 1, 4, 32) (got (3, 4, 32))."},
      {"G25: int64 indices (KDA accepts them)", [](CallSpec& s, Scalars&) { s.at("ssm_state_indices").dtype = to_dl(ScalarType::Int64); },
       "G25", "`ssm_state_indices` must be a 1D int32 tensor."},
      {"G25 passes: strided indices", [](CallSpec& s, Scalars&) { s.at("ssm_state_indices").explicit_strides() = {3}; }, "", ""},
      {"G26: 4 cursors", [](CallSpec& s, Scalars&) { s.at("write_pos").reshape({4}); }, "G26",
       "`write_pos` and `ssm_state_indices` must both have length B=3 (got 4, 3)."},
      {"G26: 2 indices", [](CallSpec& s, Scalars&) { s.at("ssm_state_indices").reshape({2}); }, "G26",
       "`write_pos` and `ssm_state_indices` must both have length B=3 (got 3, 2)."},
      {"G27: 2 flush flags", [](CallSpec& s, Scalars&) { s.at("force_flush").reshape({2}); }, "G27", "`force_flush` must have length B=3."},
      {"G28: cache_base of 4 rows", [](CallSpec&, Scalars& c) { c.circular_replay = true; c.cache_base = {4}; }, "G28",
       "`cache_base` must have shape (3,) (got (4,))."},
      {"G29: pre-decayed K on the GDN path", [](CallSpec&, Scalars& c) { c.predecayed_k_cache = true; }, "G29",
       "Pre-decayed K requires KDA circular replay with prefix gates."},
      {"G31: nk = 3", [](CallSpec&, Scalars& c) { c.nk = 3; }, "G31", "nk=3 must divide BK=32."},
      {"G31: nk = -3 (Python's 32 % -3 == -1)", [](CallSpec&, Scalars& c) { c.nk = -3; }, "G31", "nk=-3 must divide BK=32."},
      {"G31: nk = 64 > BK", [](CallSpec&, Scalars& c) { c.nk = 64; }, "G31", "nk=64 must divide BK=32."},
      {"G32: K = 16 at nk = 2 (valid for KDA)", [](CallSpec& s, Scalars&) {
         s.at("initial_state").reshape({5, 4, 32, 16}); s.at("k_cache").reshape({5, 2, 4, 16}); s.at("mixed_qkv").reshape({3, 192}); },
       "G32", "BKT=8 must be >=16 for tl.dot (nk=2, BK=16)."},
      {"G32: nk = 4 at K = 32", [](CallSpec&, Scalars& c) { c.nk = 4; }, "G32", "BKT=8 must be >=16 for tl.dot (nk=4, BK=32)."},
      {"G32: nk = -2 (BKT = 32 // -2)", [](CallSpec&, Scalars& c) { c.nk = -2; }, "G32",
       "BKT=-16 must be >=16 for tl.dot (nk=-2, BK=32)."},
      {"G32 passes: K = 16 at nk = 1", [](CallSpec& s, Scalars& c) {
         c.nk = 1; s.at("initial_state").reshape({5, 4, 32, 16}); s.at("k_cache").reshape({5, 2, 4, 16}); s.at("mixed_qkv").reshape({3, 192}); },
       "", ""},
      {"valid: K = V = 24 (not powers of two; KDA's V14 refuses them)", [](CallSpec& s, Scalars&) {
         s.at("initial_state").reshape({5, 4, 24, 24}); s.at("k_cache").reshape({5, 2, 4, 24}); s.at("d_cache").reshape({5, 4, 4, 24});
         s.at("out").reshape({3, 1, 4, 24}); s.at("mixed_qkv").reshape({3, 192}); },
       "", ""},
      {"valid: prefix_gate_cache is ignored on this path", [](CallSpec&, Scalars& c) { c.prefix_gate_cache = true; }, "", ""},
      {"valid: B = 0", [](CallSpec& s, Scalars&) {
         for (const char* n : {"mixed_qkv", "a", "b", "out", "ssm_state_indices", "write_pos", "force_flush"}) {
           auto sh = s.at(n).shape; sh[0] = 0; s.at(n).reshape(sh); } },
       "", ""},
      // The framework errors the wrapper meets, as the harness's extensions, in their place.
      {"X-GDN-RING-RANK: 2-D d_cache", [](CallSpec& s, Scalars&) { s.at("d_cache").reshape({5, 512}); }, "X-GDN-RING-RANK", nullptr},
      {"X-GDN-EMPTY-HEADS: K = 0 with strides [s, 0, 0, 1]", [](CallSpec& s, Scalars&) {
         s.at("initial_state").reshape({5, 4, 32, 0}).strides = {1, 0, 0, 1}; },
       "X-GDN-EMPTY-HEADS", nullptr},
      {"K = 0 with PyTorch's strides fails G10", [](CallSpec& s, Scalars&) {
         s.at("initial_state").reshape({5, 4, 32, 0}).strides = {128, 32, 1, 1}; },
       "G10", "`initial_state` must be contiguous in its [HV, V, K] inner dimensions; an arbitrary slot stride is supported."},
      // Null strides are PyTorch's compact ones, zero-size dims counted as 1: (128, 32, 1, 1).
      {"K = 0 with null strides fails G10", [](CallSpec& s, Scalars&) {
         s.at("initial_state").reshape({5, 4, 32, 0}).null_strides = true; },
       "G10", "`initial_state` must be contiguous in its [HV, V, K] inner dimensions; an arbitrary slot stride is supported."},
      {"V = 0 with null strides fails G10 (PyTorch's: (128, 32, 32, 1))", [](CallSpec& s, Scalars&) {
         s.at("initial_state").reshape({5, 4, 0, 32}).null_strides = true; s.at("d_cache").reshape({5, 4, 4, 0});
         s.at("out").reshape({3, 1, 4, 0}); s.at("mixed_qkv").reshape({3, 128}); },
       "G10", "`initial_state` must be contiguous in its [HV, V, K] inner dimensions; an arbitrary slot stride is supported."},
      {"V = 0 with reshape()'s compact strides fails G10 too", [](CallSpec& s, Scalars&) {
         s.at("initial_state").reshape({5, 4, 0, 32}); s.at("d_cache").reshape({5, 4, 4, 0});
         s.at("out").reshape({3, 1, 4, 0}); s.at("mixed_qkv").reshape({3, 128}); },
       "G10", "`initial_state` must be contiguous in its [HV, V, K] inner dimensions; an arbitrary slot stride is supported."},
      {"X-GDN-EMPTY-HEADS: V = 0 with strides [s, 0, K, 1]", [](CallSpec& s, Scalars&) {
         s.at("initial_state").reshape({5, 4, 0, 32}).strides = {128, 0, 32, 1}; s.at("d_cache").reshape({5, 4, 4, 0});
         s.at("out").reshape({3, 1, 4, 0}); s.at("mixed_qkv").reshape({3, 128}); },
       "X-GDN-EMPTY-HEADS", nullptr},
      {"X-GDN-EMPTY-HEADS: HV = 0", [](CallSpec& s, Scalars&) {
         s.at("initial_state").reshape({5, 0, 32, 32}); s.at("d_cache").reshape({5, 0, 4, 32}); s.at("g_cache").reshape({5, 0, 4});
         s.at("out").reshape({3, 1, 0, 32}); s.at("mixed_qkv").reshape({3, 128}); s.at("a").reshape({3, 0}); s.at("b").reshape({3, 0});
         s.at("A_log").reshape({0}); s.at("dt_bias").reshape({0}); },
       "X-GDN-EMPTY-HEADS", nullptr},
      {"X-GDN-NK: nk = 0", [](CallSpec&, Scalars& c) { c.nk = 0; }, "X-GDN-NK", nullptr},
      {"circular replay with a well-formed cache_base is valid", [](CallSpec&, Scalars& c) { c.circular_replay = true; c.cache_base = {3}; },
       "", ""},
      {"prefix_gate_cache is accepted (and ignored) on the GDN path", [](CallSpec&, Scalars& c) { c.prefix_gate_cache = true; },
       "", ""},
      {"X-DTYPE-FLOAT: float64 A_log", [](CallSpec& s, Scalars&) { s.at("A_log").dtype = {kDLFloat, 64, 1}; }, "X-DTYPE-FLOAT", nullptr},
      {"X-STRIDES: state broadcast over slots", [](CallSpec& s, Scalars&) { s.at("initial_state").explicit_strides()[0] = 0; },
       "X-STRIDES", nullptr},
      {"X-STRIDES: negative stride on out's token dim", [](CallSpec& s, Scalars&) { s.at("out").explicit_strides()[1] = -1; },
       "X-STRIDES", nullptr},
      {"X-GDN-GATE-STRIDES: a every other column", [](CallSpec& s, Scalars&) { s.at("a").explicit_strides() = {8, 2}; },
       "X-GDN-GATE-STRIDES", nullptr},
      {"X-GDN-GATE-STRIDES: dt_bias stride 2", [](CallSpec& s, Scalars&) { s.at("dt_bias").explicit_strides() = {2}; },
       "X-GDN-GATE-STRIDES", nullptr},
      {"X-GDN-GATE-STRIDES passes: a with padded rows", [](CallSpec& s, Scalars&) { s.at("a").explicit_strides() = {16, 1}; }, "", ""},
      {"X-EXTENTS: 2^62 slots", [](CallSpec& s, Scalars&) {
         const int64_t n = int64_t{1} << 62;
         s.at("initial_state").reshape({n, 4, 32, 32}); s.at("d_cache").reshape({n, 4, 4, 32}); s.at("k_cache").reshape({n, 2, 4, 32});
         s.at("g_cache").reshape({n, 4, 4}); },
       "X-EXTENTS", nullptr},
      {"X-GDN-DEVICE: cursors on cuda:0", [](CallSpec& s, Scalars&) { s.at("write_pos").device = kCuda0; }, "X-GDN-DEVICE", kDeviceMessage},
      {"X-GDN-DEVICE: cuda:0 and cuda:1", [](CallSpec& s, Scalars&) {
         for (auto* t : s.all()) t->device = kCuda0;
         s.at("out").device = {kDLCUDA, 1}; },
       "X-GDN-DEVICE", kDeviceMessage},
      {"X-GDN-DEVICE: cache_base elsewhere, even unread", [](CallSpec& s, Scalars& c) {
         for (auto* t : s.all()) t->device = kCuda0;
         c.cache_base = {3};
         c.cache_base_device = DLDevice{kDLCPU, 0}; },
       "X-GDN-DEVICE", kDeviceMessage},
      {"X-BACKEND-CUDA: host tensors", [](CallSpec& s, Scalars&) { s.backend = Backend::Cuda; }, "X-BACKEND-CUDA", nullptr},
      {"X-BACKEND-CPU: device tensors", [](CallSpec& s, Scalars&) { for (auto* t : s.all()) t->device = kCuda0; s.backend = Backend::Cpu; },
       "X-BACKEND-CPU", nullptr},
      {"valid on cuda:1 for the kernel", [](CallSpec& s, Scalars&) { for (auto* t : s.all()) t->device = {kDLCUDA, 1}; s.backend = Backend::Cuda; },
       "", ""},
      // Two checks broken: the wrapper's order decides.
      {"order: b's rank (G3) before the state's (G5)", [](CallSpec& s, Scalars&) {
         s.at("b").reshape({3, 4, 1}); s.at("initial_state").reshape({5, 4, 1024}); },
       "G3", "`b` must be 2D (got b.ndim=3)."},
      {"order: L (G16) before a (G17)", [](CallSpec& s, Scalars&) { s.at("a").reshape({3, 4, 1}); s.at("d_cache").reshape({5, 4, 0, 32}); },
       "R4", "ReplaySSM cache length must be at least 1."},
      {"order: b's shape (G14) before a's (G17)", [](CallSpec& s, Scalars&) { s.at("a").reshape({3, 8}); s.at("b").reshape({3, 8}); },
       "G14", "`b` must have contiguous shape (3, 4)."},
      {"order: d ring (G20) before k ring (G21)", [](CallSpec& s, Scalars&) {
         s.at("d_cache").reshape({5, 2, 4, 32}); s.at("k_cache").reshape({5, 4, 4, 32}); },
       "G20", "`d_cache` shape must be (5, 4, 4, 32) (got (5, 2, 4, 32))."},
      {"order: out's contiguity (G6) before circular replay's cache_base (G9)", [](CallSpec& s, Scalars& c) {
         s.at("out").explicit_strides() = {256, 128, 64, 2}; c.circular_replay = true; },
       "V8", "`out` must be contiguous."},
      {"order: int32 indices (G25) before the K tile (G32)", [](CallSpec& s, Scalars&) {
         s.at("initial_state").reshape({5, 4, 32, 16}); s.at("k_cache").reshape({5, 2, 4, 16}); s.at("mixed_qkv").reshape({3, 192});
         s.at("ssm_state_indices").dtype = to_dl(ScalarType::Int64); },
       "G25", "`ssm_state_indices` must be a 1D int32 tensor."},
      {"order: pre-decayed K (G29) before nk = 0", [](CallSpec&, Scalars& c) { c.predecayed_k_cache = true; c.nk = 0; }, "G29",
       "Pre-decayed K requires KDA circular replay with prefix gates."},
      {"order: a short d_cache stops at G16, before a (G17)", [](CallSpec& s, Scalars&) {
         s.at("d_cache").reshape({5, 512}); s.at("a").reshape({3, 4, 1}); },
       "X-GDN-RING-RANK", nullptr},
      {"order: K = 0 stops at G12, before b (G14)", [](CallSpec& s, Scalars&) {
         s.at("initial_state").reshape({5, 4, 32, 0}).strides = {1, 0, 0, 1}; s.at("b").reshape({3, 2}); },
       "X-GDN-EMPTY-HEADS", nullptr},
      {"order: the documented G22 before the strided-gate extension", [](CallSpec& s, Scalars&) {
         s.at("a").explicit_strides() = {8, 2}; s.at("g_cache").reshape({5, 4, 4, 32}); },
       "G22", "`g_cache` shape must be (5, 4, 4) (got (5, 4, 4, 32))."},
      {"circular replay: the strided-gate extension still applies", [](CallSpec& s, Scalars& c) {
         s.at("a").explicit_strides() = {8, 2}; c.circular_replay = true; c.cache_base = {3}; },
       "X-GDN-GATE-STRIDES", nullptr},
  };
  return r;
}

Outcome run_row(const Row& row) {
  CallSpec spec = engine::gdn_valid_spec(example_config());
  Scalars sc;
  row.edit(spec, sc);
  return run(spec, sc);
}

std::string expected_message(const Row& row) {
  if (row.message) return row.message;
  const CatalogEntry* e = find_catalog_entry(row.id);
  return e && !e->is_template() ? e->message : std::string("no fixed catalog message for ") + row.id;
}

bool raised_by_gdn(const CatalogEntry& e) {
  return engine::raises(engine::find_operator("gdn_replayssm"), e.id);
}

TEST(GdnContract, EachRowRaisesItsExactError) {
  for (const Row& row : rows()) {
    const Outcome o = run_row(row);
    EXPECT_EQ(o.id, row.id) << row.name;
    EXPECT_EQ(o.message, expected_message(row)) << row.name;
    if (!o.id.empty()) {
      EXPECT_EQ(catalog_ids_matching(o.message), std::vector<std::string>{o.id}) << row.name;
      const CatalogEntry* e = find_catalog_entry(o.id);
      ASSERT_NE(e, nullptr) << row.name;
      EXPECT_TRUE(raised_by_gdn(*e)) << o.id << " does not list gdn_replayssm";
    }
  }
}

// Issue 34's zero-size class (12 of 12,000 generated calls, all K = 0 or V = 0 with null
// strides): initial_state [2, 2, 64, 0] float16, k_cache [2, 1, 17, 0], mixed_qkv [2, 128]
// with row stride 129, the rest valid. SGLang's wrapper raises G10, because PyTorch's compact
// strides count a zero-size dim as 1: [2, 2, 64, 0] has (128, 64, 1, 1), not the (0, 0, 1)
// after the slot that G10 wants. The harness answered V20 (G10 passed on (0, 0, 0, 1)).
// The V = 0 twin (initial_state [2, 2, 0, 32], PyTorch's (64, 32, 32, 1)) fails G10 too.
CallSpec zero_size_call(bool zero_k) {
  CallConfig c;
  c.B = 2, c.H = 1, c.group = 2, c.K = zero_k ? 0 : 32, c.V = zero_k ? 64 : 0, c.L = 17, c.slots = 2;
  c.state = ScalarType::Float16;
  CallSpec s = engine::gdn_valid_spec(c);
  for (engine::TensorSpec* t : s.all()) t->null_strides = true;
  engine::TensorSpec& qkv = s.at("mixed_qkv");
  qkv.explicit_strides() = {qkv.shape[1] + 1, 1};
  return s;
}

TEST(GdnContract, ZeroSizeHeadsWithNullStridesFailG10AsTheWrapperDoes) {
  const CallSpec k0 = zero_size_call(true);
  EXPECT_EQ(k0.at("initial_state").shape, (std::vector<int64_t>{2, 2, 64, 0}));
  EXPECT_EQ(k0.at("k_cache").shape, (std::vector<int64_t>{2, 1, 17, 0}));
  EXPECT_EQ(k0.at("mixed_qkv").shape, (std::vector<int64_t>{2, 128}));
  EXPECT_EQ(k0.at("mixed_qkv").strides, (std::vector<int64_t>{129, 1}));
  const CallSpec v0 = zero_size_call(false);
  EXPECT_EQ(v0.at("initial_state").shape, (std::vector<int64_t>{2, 2, 0, 32}));
  for (const CallSpec* call : {&k0, &v0}) {
    const Outcome o = run(*call);
    EXPECT_EQ(o.id, "G10");
    EXPECT_EQ(o.message,
              "`initial_state` must be contiguous in its [HV, V, K] inner dimensions; an arbitrary slot stride is supported.");
    // The same answer with PyTorch's strides written out.
    CallSpec written = *call;
    written.at("initial_state").explicit_strides();
    EXPECT_EQ(written.at("initial_state").strides,
              (call == &k0 ? std::vector<int64_t>{128, 64, 1, 1} : std::vector<int64_t>{64, 32, 32, 1}));
    EXPECT_EQ(run(written).id, "G10");
  }
}

TEST(GdnContract, ValidCallsGiveTheirDims) {
  std::vector<CallConfig> configs(8, example_config());
  configs[1].K = 17;  // BK 32: the smallest K at nk = 2
  configs[2].V = 1;
  configs[3].H = 1, configs[3].group = 1, configs[3].L = 1, configs[3].slots = 1;
  configs[4].B = 1, configs[4].unit_stride = 3, configs[4].null_strides = false;
  configs[5].envelope_pad = 7, configs[5].state = ScalarType::BFloat16, configs[5].ring = ScalarType::Float32;
  configs[6].H = 16, configs[6].group = 2, configs[6].K = 128, configs[6].V = 128, configs[6].L = 16;  // Qwen3-Next
  configs[7].force_flush = false, configs[7].index = ScalarType::Int64;  // indices stay int32
  for (const CallConfig& c : configs) {
    const Outcome o = run(engine::gdn_valid_spec(c));
    EXPECT_EQ(o.id, "") << engine::to_string(c) << ": " << o.message;
    EXPECT_EQ(o.dims, c.dims()) << engine::to_string(c);
  }
}

// The operator's sampled valid calls (the contract suites' and the sweep's, metadata only)
// reach K and V off the powers of two, which its wrapper tiles by next_power_of_2 and KDA's
// contract refuses, and each is accepted with its dims.
TEST(GdnContract, SampledCallsReachHeadDimsOffThePowersOfTwo) {
  const engine::OperatorDescription& op = engine::gdn_replayssm_operator();
  const auto pow2 = [](int64_t x) { return (x & (x - 1)) == 0; };
  for (const engine::SampleLimits& l : {engine::limits::contract_calls(), engine::limits::sweep_calls()}) {
    int off_k = 0, off_v = 0;
    for (uint64_t i = 0; i < 400; ++i) {
      engine::CounterChooser ch(11, engine::stream::kContractCalls, i);
      const CallConfig c = op.sample_call(ch, l);
      off_k += !pow2(c.K) && c.K != 17, off_v += !pow2(c.V);  // 17: the floor a smaller K is raised to (G32)
      const Outcome o = run(engine::gdn_valid_spec(c));
      EXPECT_EQ(o.id, "") << engine::to_string(c) << ": " << o.message;
      EXPECT_EQ(o.dims, c.dims()) << engine::to_string(c);
    }
    EXPECT_GT(off_k, 40);
    EXPECT_GT(off_v, 40);
  }
}

// The runtime values are check_runtime_values()'s: it reads only the index tensors and Dims.
TEST(GdnContract, RuntimeValuesOfAValidCall) {
  struct Case {
    std::vector<int32_t> slots, write_pos;
    const char* id;
    std::vector<int32_t> cache_base = {};  // given: circular replay
  };
  const Case cases[] = {
      {{0, 4, -1}, {0, 3, 99}, ""},  // a padding row's cursor is never read
      {{0, 1, 2}, {0, 3, 1}, "", {3, 0, 2}},
      {{0, 1, -1}, {0, 3, 1}, "", {3, 0, -7}},  // a padding row's base is never read
      {{0, 1, 2}, {0, 3, 1}, error_id::kCacheBase, {4, 0, 2}},
      {{0, 1, 2}, {0, 3, 1}, error_id::kCacheBase, {0, -1, 2}},
      {{0, 5, 1}, {0, 0, 0}, error_id::kSlotIndex},
      {{0, 1, 2}, {0, 4, 0}, error_id::kWritePos},  // L = 4
      {{0, 1, 2}, {-1, 0, 0}, error_id::kWritePos},
      {{3, 1, 3}, {0, 0, 0}, error_id::kDuplicateSlot},
      {{-1, 2, -1}, {0, 1, 2}, ""},  // padding rows may repeat
  };
  for (const Case& k : cases) {
    const CallSpec spec = engine::gdn_valid_spec(example_config());
    BuiltCall call(spec);
    StepArgs args = engine::step_args(call);
    const Dims dims = validate_gdn_replayssm(args);
    HostTensor idx(ScalarType::Int32, {3}), wp(ScalarType::Int32, {3});
    for (int64_t i = 0; i < 3; ++i) {
      idx.set({i}, k.slots[i]);
      wp.set({i}, k.write_pos[i]);
    }
    args.ssm_state_indices = &idx.dl();
    args.write_pos = &wp.dl();
    HostTensor base(ScalarType::Int32, {3});
    if (!k.cache_base.empty()) {
      for (int64_t i = 0; i < 3; ++i) base.set({i}, k.cache_base[i]);
      args.cache_base = &base.dl();
      args.circular_replay = true;
    }
    std::string id;
    try {
      check_runtime_values(args, dims);
    } catch (const ContractError& e) {
      id = e.id();
      EXPECT_TRUE(raised_by_gdn(*find_catalog_entry(id))) << id;
    }
    EXPECT_EQ(id, k.id);
  }
}

// The configs the error inputs must hold on: the sizes' edges a sample space may reach.
std::vector<CallConfig> input_configs() {
  std::vector<CallConfig> configs(9, example_config());
  configs[1].B = 0;
  configs[2].B = 1, configs[2].H = 1, configs[2].group = 1, configs[2].V = 1, configs[2].L = 1, configs[2].slots = 1;
  configs[3].K = 24, configs[3].V = 24, configs[3].unit_stride = 3, configs[3].null_strides = false;
  configs[4].envelope_pad = 5, configs[4].force_flush = false;
  configs[5].H = 1, configs[5].group = 4, configs[5].K = 17;
  configs[6].device = kCuda0, configs[6].backend = Backend::Cuda;
  configs[7] = CallConfig{};  // Qwen3-Next's heads, a large batch and pool
  configs[7].B = 1024, configs[7].H = 16, configs[7].group = 2, configs[7].L = 16, configs[7].slots = 2000;
  configs[8].B = 2, configs[8].K = 40, configs[8].V = 3, configs[8].unit_stride = 5, configs[8].null_strides = false,
  configs[8].envelope_pad = 3;
  return configs;
}

Outcome validate_target(const engine::MutationTarget& t) { return run(t.spec); }

// One input at a time, every variant: its id and message, exactly.
TEST(GdnErrorInputs, EachRaisesItsExpectedError) {
  const auto& inputs = engine::gdn_replayssm_error_inputs();
  std::vector<int> applied(inputs.size(), 0);
  for (const CallConfig& c : input_configs()) {
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      for (uint32_t variant = 0; variant < 45; ++variant) {
        engine::MutationTarget t{engine::gdn_valid_spec(c), c.dims(), c.B};
        const std::optional<engine::Expected> want = inputs[i].apply(t, variant);
        if (!want) continue;
        ++applied[i];
        const Outcome o = validate_target(t);
        EXPECT_EQ(o.id, want->id) << inputs[i].label << "#" << variant << " on " << engine::to_string(c);
        EXPECT_EQ(o.message, want->message) << inputs[i].label << "#" << variant << " on " << engine::to_string(c);
      }
    }
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) EXPECT_GT(applied[i], 0) << inputs[i].label << " never applied";
}

// Sets of inputs, applied latest check first: the earliest applied input's error wins.
TEST(GdnErrorInputs, SetsRaiseTheEarliestAppliedError) {
  const auto& inputs = engine::gdn_replayssm_error_inputs();
  int checked = 0;
  for (const CallConfig& c : input_configs()) {
    for (uint64_t n = 0; n < 400; ++n) {
      engine::CounterChooser chooser(7, engine::stream::kContractCalls, n);
      const std::vector<engine::Mutation> set = engine::sample_mutations(chooser, inputs.size(), 4);
      engine::MutationTarget t{engine::gdn_valid_spec(c), c.dims(), c.B};
      const engine::MutationResult r = engine::apply_mutations(inputs, t, set);
      const Outcome o = validate_target(t);
      const std::string what = engine::describe(inputs, set) + " on " + engine::to_string(c);
      EXPECT_EQ(o.id, r.expected ? r.expected->id : "") << what;
      EXPECT_EQ(o.message, r.expected ? r.expected->message : "") << what;
      ++checked;
    }
  }
  EXPECT_EQ(checked, static_cast<int>(input_configs().size()) * 400);
}

// Every entry that lists gdn_replayssm is raised by a row, an input or a runtime case above,
// except G30, which cannot fire (BK = next_power_of_2(K) >= K).
TEST(GdnContract, EveryCatalogEntryOfTheOperatorIsRaised) {
  std::set<std::string> raised{error_id::kSlotIndex, error_id::kWritePos, error_id::kCacheBase,
                               error_id::kDuplicateSlot};  // runtime tests
  for (const Row& row : rows()) raised.insert(run_row(row).id);
  for (const engine::ErrorInput& in : engine::gdn_replayssm_error_inputs())
    for (const CallConfig& c : input_configs()) {
      engine::MutationTarget t{engine::gdn_valid_spec(c), c.dims(), c.B};
      if (in.apply(t, 0)) raised.insert(validate_target(t).id);
    }
  int entries = 0;
  for (const CatalogEntry& e : error_catalog()) {
    if (!raised_by_gdn(e)) continue;
    ++entries;
    if (e.id == "G30") EXPECT_FALSE(raised.count(e.id));
    else EXPECT_TRUE(raised.count(e.id)) << "nothing raises " << e.id;
  }
  EXPECT_EQ(entries, 27 + 5 + 6 + 8);  // own G texts, shared texts, own extensions, shared extensions
}

// Harness misuse is not a contract error.
TEST(GdnContract, MissingRequiredTensorIsAnInvalidArgument) {
  const CallSpec spec = engine::gdn_valid_spec(example_config());
  BuiltCall call(spec);
  StepArgs args = engine::step_args(call);
  args.g_cache = nullptr;
  EXPECT_THROW(validate_gdn_replayssm(args), std::invalid_argument);
}

}  // namespace
}  // namespace kda::test
