// kda_triton_replayssm as an operator description: the Triton ReplaySSM wrapper's KDA path,
// its contract (validate_triton_replayssm with is_kda, shared with gdn_replayssm's folder),
// reference step (reference_step.hpp), valid calls and error inputs (the same wrapper's, on
// this path), and its view as kda_replayssm's function for the truth (kda_view.hpp).
#include "operators/kda_triton_replayssm/description.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "operators/gdn_replayssm/contract.hpp"
#include "operators/gdn_replayssm/error_inputs.hpp"
#include "operators/gdn_replayssm/valid_call.hpp"
#include "operators/kda_triton_replayssm/golden_cases.hpp"
#include "operators/kda_triton_replayssm/kda_view.hpp"
#include "operators/kda_triton_replayssm/reference_step.hpp"
#include "operators/replayssm_family/case_driver.hpp"
#include "operators/replayssm_family/sample_space.hpp"

namespace kda::engine {
namespace {

// The wrapper's tensor arguments in its signature's order (force_flush and cache_base optional).
constexpr std::array<std::string_view, 14> kTensors = {
    "mixed_qkv", "a",       "b",   "A_log",             "dt_bias",   "initial_state", "d_cache",
    "k_cache",   "g_cache", "out", "ssm_state_indices", "write_pos", "force_flush",   "cache_base"};
// Its scalar arguments, lower_bound before use_qk_l2norm_in_kernel as in its signature.
constexpr std::array<std::string_view, 7> kScalars = {"scale",           "lower_bound",       "use_qk_l2norm_in_kernel",
                                                      "nk",              "circular_replay",   "prefix_gate_cache",
                                                      "predecayed_k_cache"};
// At the wrapper's nk = 2 a K tile is next_pow2(K) / 2 wide and must reach 16 (G32).
constexpr int64_t kMinK = 17;

// The call config made one of this operator's valid calls: int32 indices (G25), K past G32.
CallConfig kda_call(CallConfig c) {
  c.index = ScalarType::Int32;
  c.K = std::max(c.K, kMinK);
  return c;
}

// A valid call: the shared sample space's, with K and V off the powers of two (in (d/2, d))
// in one call of three: the wrapper tiles K by next_power_of_2 and masks the rest.
CallConfig sample_kda_call(Chooser& ch, const SampleLimits& l) {
  CallConfig c = sample_call_config(ch, l);
  if (ch.coin(1, 2)) {
    const auto off = [&](int64_t d, IntRange r) {
      const int64_t lo = std::max(d / 2 + 1, r.lo), hi = std::min(d - 1, r.hi);
      return lo <= hi ? ch.integer(lo, hi) : d;
    };
    c.K = off(c.K, l.K);
    c.V = off(c.V, l.V);
  }
  return kda_call(c);
}

// The largest lower bound's magnitude P8 accepts for ring length L: (L - 1) |lb| <= 80 in
// double arithmetic, as Python evaluates it.
double predecay_bound(int64_t L) {
  double b = 80.0 / static_cast<double>(L - 1);
  while (static_cast<double>(L - 1) * b > 80.0) b = std::nextafter(b, 0.0);
  return b;
}

// A case config made one of this operator's: a per-K gate as [B, HV, K] and dt_bias [HV, K]
// (K17-K19), compact rings (G19: no strided layout), int32 indices, K past G32. Pre-decayed
// keys (pdk=1) move the case into P2-P9's envelope: circular with prefix gates, H = HV, a
// float32 state, L in 2..16, a bounded gate with (L - 1) |lower_bound| <= 80, rings of one
// dtype that is float32 or the activations' (float32 with float16 activations).
CaseConfig fit_kda_case(CaseConfig c) {
  c.gate_per_head = false;
  c.a_3d = c.dt_bias_2d = true;
  c.envelope = false;
  c.index_dtype = ScalarType::Int32;
  c.K = std::max(c.K, int64_t{32});  // the smallest power of two past G32
  if (!c.predecayed_keys) return c;
  c.circular = c.prefix_gates = true;
  c.HV = c.H;
  c.state_dtype = ScalarType::Float32;
  c.L = std::clamp<int64_t>(c.L, 2, 16);
  const double bound = predecay_bound(c.L);
  c.lower_bound = -std::min(c.lower_bound ? -*c.lower_bound : 5.0, bound);
  if (c.act_dtype == ScalarType::Float16 || (c.ring_dtype != c.act_dtype && c.ring_dtype != ScalarType::Float32))
    c.ring_dtype = ScalarType::Float32;
  return c;
}

// The reference step as a backend: the contract and the runtime values first (refused calls
// write nothing).
Dims checked_step(const StepArgs& args, reference::Rounding rounding) {
  check_runtime_values(args, validate_triton_replayssm(args, true, kda::Backend::Cpu));
  return kda_triton::kda_triton_step(args, rounding);
}

const std::vector<ErrorInput>& error_inputs() {
  static const std::vector<ErrorInput> list = triton_replayssm_error_inputs(true);
  return list;
}

}  // namespace

const OperatorDescription& kda_triton_replayssm_operator() {
  // The catalog ids its contract and runtime checks raise (OperatorDescription::raises).
  static constexpr std::string_view kRaises[] = {
      "V2", "V8", "V20", "V22", "R4", "G1", "G3", "G4", "G5", "G7", "G8", "G9", "G10", "G12", "G14", "G15",
      "K17", "K18", "K19", "G19", "G20", "G21", "G22", "G23", "G24", "G25", "G26", "G27", "G28", "G29", "P2",
      "P3", "P4", "P5", "P6", "P7", "P8", "P9", "G30", "G31", "G32", "X-DTYPE-FLOAT", "X-STRIDES", "X-EXTENTS",
      "X-BACKEND-CPU", "X-BACKEND-CUDA", "X-GDN-RING-RANK", "X-GDN-EMPTY-HEADS", "X-GDN-NK",
      "X-GDN-GATE-STRIDES", "X-GDN-DEVICE", "X-SLOT-INDEX", "X-WRITE-POS", "X-CACHE-BASE", "X-DUP-SLOT"};
  // The truth reads its calls through kda_view (the rings in logical order, raw gates and raw
  // keys); beta is rounded through b's dtype, the view giving pre-decayed calls a float32 b.
  static const ReplaySSMDriver driver = replayssm_case_driver(&kda_triton::kda_view);
  static const OperatorDescription op{
      .name = "kda_triton_replayssm",
      .summary = "The KDA path of SGLang's Triton ReplaySSM decode step, with circular rings, prefix gates and pre-decayed keys",
      .tensors = kTensors,
      .scalars = kScalars,
      .bind = [](StepArgs a) { return a; },
      .validate = [](const StepArgs& a, kda::Backend b) { return validate_triton_replayssm(a, true, b); },
      .reference_step = &checked_step,
      .emulated_step = nullptr,  // the emulations model kda_replayssm's linear ring only
      .error_inputs = &error_inputs,
      .raises = kRaises,
      .sample_case = &sample_case,
      .sample_call = &sample_kda_call,
      .valid_spec = [](const CallConfig& c) { return triton_valid_spec(kda_call(c), true); },
      .dims_of = [](const CallConfig& c) { return kda_call(c).dims(); },
      .fit_case = &fit_kda_case,
      .ok_line = [](const Dims& d) {
        return fmt::format("ok B={} H={} HV={} K={} V={} L={} slots={}", d.B, d.H, d.HV, d.K, d.V, d.L, d.slots);
      },
      .golden_cases = &kda_triton_replayssm_golden_cases,
      .restated_contract = nullptr,
      .case_driver = &driver,
      .ring_variants = KDA_RING_ALL};
  return op;
}

}  // namespace kda::engine
