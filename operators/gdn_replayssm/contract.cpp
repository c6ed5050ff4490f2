// validate_triton_replayssm(): the Triton ReplaySSM wrapper's checks G1-G32 in its order
// (spec/gdn-replayssm.md), each a transcription of the Python condition on PyTorch's
// definitions; on its KDA path (is_kda) K17-K19 in G17-G18's place, G22 wanting the per-K g
// ring and the pre-decayed block P2-P9 after G29's condition (spec/circular-replay.md); then
// the harness extensions (contract_extensions.cpp). Sizes that Python computes without bound (HV*V,
// next_power_of_2(K)) are formed in 128 bits so that every message prints them exactly.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "contract/catalog_message.hpp"
#include "contract/checked_int.hpp"
#include "contract/contract_error.hpp"
#include "contract/scalar_type.hpp"
#include "contract/tensor_view.hpp"
#include "contract/torch_view.hpp"
#include "contract/validate_internal.hpp"
#include "operators/gdn_replayssm/contract.hpp"
#include "operators/gdn_replayssm/contract_internal.hpp"

namespace kda {
namespace gdn_detail {
namespace {

[[noreturn]] void fail(const char* id, const std::string& message) { throw ContractError(id, message); }

bool is_int32(const DLTensor& t) {
  const DLDataType i32 = to_dl(ScalarType::Int32);
  return t.dtype.code == i32.code && t.dtype.bits == i32.bits && t.dtype.lanes == i32.lanes;
}

bool is_float32(const DLTensor& t) {
  const DLDataType f32 = to_dl(ScalarType::Float32);
  return t.dtype.code == f32.code && t.dtype.bits == f32.bits && t.dtype.lanes == f32.lanes;
}

// `t.ndim != 1 or t.dtype != torch.int32 or not t.is_contiguous()` (G7-G9).
bool not_contiguous_1d_int32(const DLTensor& t) { return t.ndim != 1 || !is_int32(t) || !is_contiguous(t); }

// str(t.dtype) for G23: "torch." and PyTorch's name; dtypes PyTorch has no name for (lanes,
// odd codes) get the harness's DLPack name, so the message stays one word after "torch.".
std::string torch_dtype(const DLTensor& t) { return "torch." + dl_dtype_name(t.dtype); }

// triton.next_power_of_2(n) for n >= 1 (exact: n < 2^63, so the result is at most 2^63).
i128 next_power_of_2(int64_t n) {
  i128 p = 1;
  while (p < n) p *= 2;
  return p;
}

// Python's a % b == 0 for b != 0: zero exactly when |b| divides a, whatever the signs.
bool divides(i128 b, i128 a) { return a % b == 0; }

struct Sizes {
  int64_t B = 0, slots = 0, HV = 0, V = 0, K = 0, H = 0, L = 0;
};

// G1-G9: ranks, layouts and the index tensors' dtypes, before any size is read.
void check_layouts(const StepArgs& args) {
  const DLTensor& qkv = *args.mixed_qkv;
  if (qkv.ndim != 2) fail("G1", catalog_message("G1", {{"mixed_qkv.ndim", qkv.ndim}}));
  if (stride(qkv, -1) != 1) fail("V2", catalog_message("V2"));
  if (args.b->ndim != 2) fail("G3", catalog_message("G3", {{"b.ndim", args.b->ndim}}));
  if (args.A_log->ndim != 1) fail("G4", catalog_message("G4"));
  if (args.initial_state->ndim != 4)
    fail("G5", catalog_message("G5", {{"initial_state.ndim", args.initial_state->ndim}}));
  if (!is_contiguous(*args.out)) fail("V8", catalog_message("V8"));
  if (not_contiguous_1d_int32(*args.write_pos)) fail("G7", catalog_message("G7"));
  if (args.force_flush && not_contiguous_1d_int32(*args.force_flush)) fail("G8", catalog_message("G8"));
  if (args.circular_replay && (!args.cache_base || not_contiguous_1d_int32(*args.cache_base)))
    fail("G9", catalog_message("G9"));
}

// G10-G15: the head configuration from initial_state and the packing of mixed_qkv.
void check_heads(const StepArgs& args, Sizes& s) {
  const DLTensor& state = *args.initial_state;
  s.B = args.mixed_qkv->shape[0];
  s.slots = state.shape[0];
  s.HV = state.shape[1];
  s.V = state.shape[2];
  s.K = state.shape[3];
  // Raw strides, size-1 dims not excused; null strides are compact (exact in 128 bits).
  const std::vector<i128> st = wide_strides(state);
  const i128 VK = static_cast<i128>(s.V) * s.K;
  if (st[1] != VK || st[2] != s.K || st[3] != 1) fail("G10", catalog_message("G10"));

  const int64_t qkv_dim = args.mixed_qkv->shape[1];
  const i128 HVV = static_cast<i128>(s.HV) * s.V;
  if (qkv_dim <= HVV || (qkv_dim - HVV) % 2 != 0)
    fail("V20", catalog_message("V20", {{"qkv_dim", qkv_dim}, {"HV", s.HV}, {"V", s.V}}));
  const i128 q_dim = (qkv_dim - HVV) / 2;  // >= 1 here, so G12's `q_dim <= 0` cannot fire
  // `q_dim % K` with K = 0 raises ZeroDivisionError in Python (possible only with hand-made
  // strides [s, 0, 0, 1], which pass G10): the harness's extension error instead.
  if (s.K == 0) fail(gdn_error_id::kEmptyHeads, catalog_message(gdn_error_id::kEmptyHeads));
  if (q_dim % s.K != 0)
    fail("G12", catalog_message("G12", {{"qkv_dim", qkv_dim}, {"HV", s.HV}, {"V", s.V}, {"K", s.K}}));
  s.H = static_cast<int64_t>(q_dim / s.K);  // >= 1 (G13's `H <= 0` cannot fire); q_dim < 2^62
  if (s.HV % s.H != 0) fail("V22", catalog_message("V22", {{"H", s.H}, {"HV", s.HV}}));

  const DLTensor& b = *args.b;
  if (b.shape[0] != s.B || b.shape[1] != s.HV || stride(b, -1) != 1)
    fail("G14", catalog_message("G14", {{"(B, HV)", tuple_repr({s.B, s.HV})}}));
  const DLTensor& A_log = *args.A_log;
  if (A_log.shape[0] != s.HV || !is_contiguous(A_log))
    fail("G15", catalog_message("G15", {{"(HV,)", tuple_repr({s.HV})}}));
}

// G17-G18 (GDN: one gate per value head) or K17-K19 (KDA: one per key channel, contiguous).
void check_gate_shapes(const StepArgs& args, const Sizes& s, bool is_kda) {
  const DLTensor &a = *args.a, &dt = *args.dt_bias;
  if (is_kda) {
    const std::vector<int64_t> a_want{s.B, s.HV, s.K}, dt_want{s.HV, s.K};
    if (a.ndim != 3 || shape_of(a) != a_want)
      fail("K17", catalog_message("K17", {{"(B, HV, K)", tuple_repr(a_want)}, {"tuple(a.shape)", tuple_repr(shape_of(a))}}));
    if (dt.ndim != 2 || shape_of(dt) != dt_want)
      fail("K18", catalog_message("K18", {{"(HV, K)", tuple_repr(dt_want)}, {"tuple(dt_bias.shape)", tuple_repr(shape_of(dt))}}));
    if (!is_contiguous(a) || !is_contiguous(dt)) fail("K19", catalog_message("K19"));
    return;
  }
  if (a.ndim != 2 || a.shape[0] != s.B || a.shape[1] != s.HV)
    fail("G17", catalog_message("G17", {{"(B, HV)", tuple_repr({s.B, s.HV})}, {"tuple(a.shape)", tuple_repr(shape_of(a))}}));
  if (dt.ndim != 1 || dt.shape[0] != s.HV)
    fail("G18", catalog_message("G18", {{"(HV,)", tuple_repr({s.HV})}, {"tuple(dt_bias.shape)", tuple_repr(shape_of(dt))}}));
}

// G16-G24: the ring length, the gate shapes, the rings and out.
void check_rings(const StepArgs& args, Sizes& s, bool is_kda) {
  const DLTensor& d = *args.d_cache;
  // `d_cache.shape[2]` of a tensor under 3 dims raises IndexError in Python: the harness's
  // extension error instead (G20's text, which embeds L, cannot be written without it).
  if (d.ndim < 3) fail(gdn_error_id::kRingRank, catalog_message(gdn_error_id::kRingRank));
  s.L = d.shape[2];
  if (s.L < 1) fail("R4", catalog_message("R4"));

  check_gate_shapes(args, s, is_kda);

  const DLTensor &k = *args.k_cache, &g = *args.g_cache;
  if (!is_contiguous(d) || !is_contiguous(k) || !is_contiguous(g)) fail("G19", catalog_message("G19"));
  const std::vector<int64_t> d_want{s.slots, s.HV, s.L, s.V}, k_want{s.slots, s.H, s.L, s.K};
  // (num_state_slots, *g_expect): the KDA path keeps a gate per key channel.
  const std::vector<int64_t> g_want = is_kda ? std::vector<int64_t>{s.slots, s.HV, s.L, s.K} : std::vector<int64_t>{s.slots, s.HV, s.L};
  if (shape_of(d) != d_want)
    fail("G20", catalog_message("G20", {{"(slots, HV, L, V)", tuple_repr(d_want)}, {"tuple(d_cache.shape)", tuple_repr(shape_of(d))}}));
  // The key ring is grouped by QUERY heads (H), as in R6.
  if (shape_of(k) != k_want)
    fail("G21", catalog_message("G21", {{"(slots, H, L, K)", tuple_repr(k_want)}, {"tuple(k_cache.shape)", tuple_repr(shape_of(k))}}));
  if (shape_of(g) != g_want)
    fail("G22", catalog_message("G22", {{"(slots, HV, L)", tuple_repr(g_want)}, {"tuple(g_cache.shape)", tuple_repr(shape_of(g))}}));
  if (!is_float32(g)) fail("G23", catalog_message("G23", {{"g_cache.dtype", torch_dtype(g)}}));

  const std::vector<int64_t> out_want{s.B, 1, s.HV, s.V};
  if (shape_of(*args.out) != out_want)
    fail("G24", catalog_message("G24", {{"(B, 1, HV, V)", tuple_repr(out_want)}, {"tuple(out.shape)", tuple_repr(shape_of(*args.out))}}));
}

// `t.dtype == u.dtype` (exact DLPack type: code, bits and lanes).
bool same_dtype(const DLTensor& t, const DLTensor& u) {
  return t.dtype.code == u.dtype.code && t.dtype.bits == u.dtype.bits && t.dtype.lanes == u.dtype.lanes;
}

bool is_float16(const DLTensor& t) {
  const DLDataType f16 = to_dl(ScalarType::Float16);
  return t.dtype.code == f16.code && t.dtype.bits == f16.bits && t.dtype.lanes == f16.lanes;
}

// The pre-decayed block, when predecayed_k_cache: P1 (= G29) refuses it off the KDA path or
// without circular replay and prefix gates; P2-P9 bound the envelope in which k exp(-prefix)
// stays finite in the ring (circular-replay.md, "The wrapper's checks").
void check_predecayed(const StepArgs& args, const Sizes& s, bool is_kda) {
  if (!is_kda || !args.prefix_gate_cache || !args.circular_replay) fail("G29", catalog_message("G29"));
  const DLTensor &qkv = *args.mixed_qkv, &d = *args.d_cache, &k = *args.k_cache;
  if (s.H != s.HV) fail("P2", catalog_message("P2"));
  if (!is_float32(*args.initial_state)) fail("P3", catalog_message("P3"));
  if (!same_dtype(d, k)) fail("P4", catalog_message("P4"));
  if (!same_dtype(d, qkv) && !is_float32(d)) fail("P5", catalog_message("P5"));
  if (s.L < 2 || s.L > 16) fail("P6", catalog_message("P6"));
  // `lower_bound >= 0` holds for -0.0 too.
  const std::optional<double> lb = args.lower_bound;
  if (!lb || !std::isfinite(*lb) || *lb >= 0) fail("P7", catalog_message("P7"));
  // Python float arithmetic: (L - 1) * abs(lower_bound), an int times a float, in double.
  if (static_cast<double>(s.L - 1) * std::fabs(*lb) > 80.0) fail("P8", catalog_message("P8"));
  if (is_float16(qkv) && !is_float32(k)) fail("P9", catalog_message("P9"));
}

// G25-G32: the index tensors' lengths, the ring variants and the K tiling.
void check_rows_and_tiles(const StepArgs& args, const Sizes& s, bool is_kda) {
  const DLTensor &idx = *args.ssm_state_indices, &wp = *args.write_pos;
  if (idx.ndim != 1 || !is_int32(idx)) fail("G25", catalog_message("G25"));
  if (wp.shape[0] != s.B || idx.shape[0] != s.B)
    fail("G26", catalog_message("G26", {{"B", s.B}, {"write_pos.shape[0]", wp.shape[0]}, {"ssm_state_indices.shape[0]", idx.shape[0]}}));
  if (args.force_flush && args.force_flush->shape[0] != s.B) fail("G27", catalog_message("G27", {{"B", s.B}}));
  if (args.circular_replay && args.cache_base->shape[0] != s.B)  // 1-D by G9
    fail("G28", catalog_message("G28", {{"(B,)", tuple_repr({s.B})}, {"tuple(cache_base.shape)", tuple_repr(shape_of(*args.cache_base))}}));
  if (args.predecayed_k_cache) check_predecayed(args, s, is_kda);

  // G30, cdiv(K, BK) != 1, cannot fire: BK = next_power_of_2(K) >= K >= 1.
  const i128 BK = next_power_of_2(s.K);
  // `BK % nk` with nk = 0 raises ZeroDivisionError in Python: the harness's extension error.
  // A negative nk reaches G31 or G32 as in Python.
  if (args.nk == 0) fail(gdn_error_id::kNk, catalog_message(gdn_error_id::kNk));
  if (!divides(args.nk, BK)) fail("G31", catalog_message("G31", {{"nk", args.nk}, {"BK", to_string(BK)}}));
  const i128 BKT = BK / args.nk;  // exact: nk divides BK
  if (BKT < 16) fail("G32", catalog_message("G32", {{"BKT", to_string(BKT)}, {"nk", args.nk}, {"BK", to_string(BK)}}));
}

}  // namespace

Dims check_wrapper(const StepArgs& args, bool is_kda) {
  check_layouts(args);
  Sizes s;
  check_heads(args, s);
  check_rings(args, s, is_kda);
  check_rows_and_tiles(args, s, is_kda);
  return Dims{s.B, s.H, s.HV, s.K, s.V, s.L, s.slots};
}

}  // namespace gdn_detail

Dims validate_triton_replayssm(const StepArgs& args, bool is_kda, Backend backend) {
  detail::check_well_formed(args.mixed_qkv, "mixed_qkv", true);
  detail::check_well_formed(args.a, "a", true);
  detail::check_well_formed(args.b, "b", true);
  detail::check_well_formed(args.A_log, "A_log", true);
  detail::check_well_formed(args.dt_bias, "dt_bias", true);
  detail::check_well_formed(args.initial_state, "initial_state", true);
  detail::check_well_formed(args.d_cache, "d_cache", true);
  detail::check_well_formed(args.k_cache, "k_cache", true);
  detail::check_well_formed(args.g_cache, "g_cache", true);
  detail::check_well_formed(args.out, "out", true);
  detail::check_well_formed(args.ssm_state_indices, "ssm_state_indices", true);
  detail::check_well_formed(args.write_pos, "write_pos", true);
  detail::check_well_formed(args.force_flush, "force_flush", false);
  detail::check_well_formed(args.cache_base, "cache_base", false);

  const Dims dims = gdn_detail::check_wrapper(args, is_kda);
  gdn_detail::check_extensions(args, dims, backend, is_kda);
  return dims;
}

Dims validate_gdn_replayssm(const StepArgs& args, Backend backend) { return validate_triton_replayssm(args, false, backend); }

}  // namespace kda
