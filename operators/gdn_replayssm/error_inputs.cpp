// gdn_replayssm's error inputs: each mutation breaks its own check in one of a few ways
// (picked by the variant) and no check before it, whatever the valid call and whichever later
// inputs were applied first (they only leave sizes recorded in t.dims behind).
#include "operators/gdn_replayssm/error_inputs.hpp"

#include <algorithm>
#include <cstdint>

#include "contract/contract_error.hpp"
#include "contract/scalar_type.hpp"
#include "contract/tensor_view.hpp"
#include "operators/gdn_replayssm/contract.hpp"

namespace kda::engine {
namespace {

using Out = std::optional<Expected>;

int64_t qkv_cols(const Dims& d) { return 2 * d.H * d.K + d.HV * d.V; }

TensorSpec& force_flush_of(MutationTarget& t) {
  if (TensorSpec* ff = t.spec.find("force_flush")) return *ff;
  TensorSpec ff;
  ff.dtype = to_dl(ScalarType::Int32);
  ff.device = t.spec.at("mixed_qkv").device;
  ff.reshape({t.B});
  return t.spec.set("force_flush", ff);
}

// Doubles the strides up to the last dim of size > 1, so that is_contiguous() fails without
// any two elements meeting; false (nothing edited) for a tensor that every layout leaves
// contiguous (no element, or no dim of size > 1).
bool make_non_contiguous(TensorSpec& t) {
  auto last = std::find_if(t.shape.rbegin(), t.shape.rend(), [](int64_t n) { return n > 1; });
  if (last == t.shape.rend() || std::find(t.shape.begin(), t.shape.end(), 0) != t.shape.end()) return false;
  const std::size_t d = t.shape.size() - 1 - static_cast<std::size_t>(last - t.shape.rbegin());
  std::vector<int64_t>& s = t.explicit_strides();
  s = compact_strides(t.shape);
  for (std::size_t e = 0; e <= d; ++e) s[e] *= 2;
  return true;
}

std::string torch_dtype(DLDataType dt) { return "torch." + dl_dtype_name(dt); }

// The rings and the state resized together (G20-G22 compare their slot counts).
void resize_slots(MutationTarget& t, int64_t slots) {
  for (const char* name : {"initial_state", "d_cache", "k_cache", "g_cache"}) {
    TensorSpec& x = t.spec.at(name);
    auto sh = x.shape;
    sh[0] = slots;
    x.reshape(sh);
  }
  t.dims.slots = slots;
}

// initial_state reshaped to t.dims with the inner strides G10 wants, (V*K, K, 1), after
// PyTorch's slot stride: all PyTorch's own where V and K are >= 1, hand-made where one is 0
// (PyTorch's strides of an empty state count zero-size dims as 1 and fail G10:
// torch.empty((2, 2, 64, 0)).stride() is (128, 64, 1, 1), G10 wants (0, 0, 1) after the slot).
TensorSpec& reshape_state(MutationTarget& t) {
  const Dims& d = t.dims;
  TensorSpec& state = t.spec.at("initial_state");
  state.reshape({d.slots, d.HV, d.V, d.K});
  state.strides[1] = d.V * d.K;
  state.strides[2] = d.K;
  return state;
}

// The gates sized by t.dims: GDN's one per value head (a [B, HV], dt_bias [HV], g_cache
// [slots, HV, L]) or, on the KDA path, one per key channel ([B, HV, K], [HV, K], [slots, HV, L, K]).
void reshape_gates(MutationTarget& t, bool kda) {
  const Dims& d = t.dims;
  CallSpec& s = t.spec;
  s.at("a").reshape(kda ? std::vector<int64_t>{t.B, d.HV, d.K} : std::vector<int64_t>{t.B, d.HV});
  s.at("dt_bias").reshape(kda ? std::vector<int64_t>{d.HV, d.K} : std::vector<int64_t>{d.HV});
  s.at("g_cache").reshape(kda ? std::vector<int64_t>{d.slots, d.HV, d.L, d.K} : std::vector<int64_t>{d.slots, d.HV, d.L});
}

// A new K: the state, the key ring, the q|k part of mixed_qkv and (KDA) the gates follow it.
void resize_k(MutationTarget& t, int64_t K, bool kda) {
  Dims& d = t.dims;
  d.K = K;
  reshape_state(t);
  t.spec.at("k_cache").reshape({d.slots, d.H, d.L, K});
  t.spec.at("mixed_qkv").reshape({t.B, qkv_cols(d)});
  if (kda) reshape_gates(t, kda);
}

// No value heads (HV = 0) or no value rows (V = 0): every tensor sized by them follows.
void empty_heads(MutationTarget& t, bool no_heads, bool kda) {
  Dims& d = t.dims;
  (no_heads ? d.HV : d.V) = 0;
  CallSpec& s = t.spec;
  s.at("mixed_qkv").reshape({t.B, qkv_cols(d)});
  s.at("b").reshape({t.B, d.HV});
  s.at("A_log").reshape({d.HV});
  reshape_gates(t, kda);
  reshape_state(t);  // V = 0: strides [s, 0, K, 1], which pass G10 (PyTorch's own fail it)
  s.at("d_cache").reshape({d.slots, d.HV, d.L, d.V});
  s.at("out").reshape({t.B, 1, d.HV, d.V});
}

// K17-K19, the KDA path's gate checks in G17-G18's place: a [B, HV, K], dt_bias [HV, K], both
// contiguous.
void add_kda_gate_inputs(std::vector<ErrorInput>& in) {
  in.push_back({"K17", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    TensorSpec& a = t.spec.at("a");
    switch (v % 4) {
      case 0: a.reshape({t.B, d.HV * d.K}); break;  // the Helion wrapper's flat gate
      case 1: a.reshape({t.B, d.HV}); break;        // a GDN gate
      case 2: a.reshape({t.B, d.HV, d.K + 1}); break;
      default: a.reshape({t.B + 1, d.HV, d.K}); break;
    }
    return expect("K17", {{"(B, HV, K)", tuple_repr({t.B, d.HV, d.K})}, {"tuple(a.shape)", tuple_repr(a.shape)}});
  }});
  in.push_back({"K18", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    TensorSpec& dt = t.spec.at("dt_bias");
    switch (v % 3) {
      case 0: dt.reshape({d.HV * d.K}); break;  // the flat bias the Helion wrapper also takes
      case 1: dt.reshape({d.HV}); break;        // a GDN bias
      default: dt.reshape({d.HV + 1, d.K}); break;
    }
    return expect("K18", {{"(HV, K)", tuple_repr({d.HV, d.K})}, {"tuple(dt_bias.shape)", tuple_repr(dt.shape)}});
  }});
  in.push_back({"K19", [](MutationTarget& t, uint32_t v) -> Out {
    for (const char* name : {v % 2 ? "dt_bias" : "a", v % 2 ? "a" : "dt_bias"})
      if (make_non_contiguous(t.spec.at(name))) return expect("K19");
    return std::nullopt;
  }});
}

std::vector<ErrorInput> wrapper_inputs(bool kda) {
  std::vector<ErrorInput> in;
  in.push_back({"G1", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& qkv = t.spec.at("mixed_qkv");
    const int64_t cols = qkv.shape.size() == 2 ? qkv.shape[1] : qkv_cols(t.dims);
    switch (v % 3) {
      case 0: qkv.reshape({t.B, 1, cols}); break;
      case 1: qkv.reshape({}); break;
      default: qkv.reshape({t.B * cols}); break;
    }
    return expect("G1", {{"mixed_qkv.ndim", static_cast<int64_t>(qkv.shape.size())}});
  }});
  in.push_back({"G2", [](MutationTarget& t, uint32_t) -> Out {
    TensorSpec& qkv = t.spec.at("mixed_qkv");
    std::vector<int64_t>& s = qkv.explicit_strides();
    s = {2 * std::max<int64_t>(qkv.shape[1], 1), 2};
    return expect("V2");
  }});
  in.push_back({"G3", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& b = t.spec.at("b");
    switch (v % 3) {
      case 0: b.reshape({t.B, t.dims.HV, 1}); break;
      case 1: b.reshape({t.B * t.dims.HV}); break;
      default: b.reshape({}); break;
    }
    return expect("G3", {{"b.ndim", static_cast<int64_t>(b.shape.size())}});
  }});
  in.push_back({"G4", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& A_log = t.spec.at("A_log");
    switch (v % 3) {
      case 0: A_log.reshape({t.dims.HV, 1}); break;
      case 1: A_log.reshape({1, t.dims.HV}); break;
      default: A_log.reshape({}); break;
    }
    return expect("G4");
  }});
  in.push_back({"G5", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    TensorSpec& state = t.spec.at("initial_state");
    if (v % 2 == 0) state.reshape({d.slots, d.HV, d.V * d.K});
    else state.reshape({d.slots, d.HV, d.V, d.K, 1});
    return expect("G5", {{"initial_state.ndim", static_cast<int64_t>(state.shape.size())}});
  }});
  in.push_back({"G6", [](MutationTarget& t, uint32_t) -> Out {
    if (!make_non_contiguous(t.spec.at("out"))) return std::nullopt;
    return expect("V8");
  }});
  in.push_back({"G7", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& wp = t.spec.at("write_pos");
    switch (v % 5) {
      case 0: wp.reshape({t.B, 1}); break;
      case 1: wp.reshape({}); break;
      case 2: wp.dtype = to_dl(ScalarType::Int64); break;
      case 3: wp.dtype = to_dl(ScalarType::Float32); break;
      default:
        if (!make_non_contiguous(wp)) wp.dtype = to_dl(ScalarType::Int64);  // B < 2: always contiguous
        break;
    }
    return expect("G7");
  }});
  in.push_back({"G8", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& ff = force_flush_of(t);
    switch (v % 4) {
      case 0: ff.reshape({t.B, 1}); break;
      case 1: ff.dtype = to_dl(ScalarType::Int64); break;
      case 2: ff.dtype = DLDataType{kDLUInt, 8, 1}; break;  // a bool-like mask
      default:
        if (!make_non_contiguous(ff)) ff.reshape({});
        break;
    }
    return expect("G8");
  }});
  in.push_back({"G10", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    TensorSpec& state = t.spec.at("initial_state");
    state.reshape({d.slots, d.HV, d.V, d.K});
    switch (v % 3) {  // no two elements meet in any of these
      case 0: state.strides = {2 * d.HV * d.V * d.K, 2 * d.V * d.K, 2 * d.K, 2}; break;
      case 1: state.strides = {d.HV * (d.V * d.K + 1), d.V * d.K + 1, d.K, 1}; break;  // padded heads
      default: state.strides = {d.HV * d.V * (d.K + 1), d.V * (d.K + 1), d.K + 1, 1}; break;  // padded rows
    }
    return expect("G10");
  }});
  in.push_back({"G11", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    // v only (no q|k), or an odd q|k part.
    const int64_t cols = v % 2 == 0 ? d.HV * d.V : d.HV * d.V + 2 * d.H * d.K + 1;
    t.spec.at("mixed_qkv").reshape({t.B, cols});
    return expect("V20", {{"qkv_dim", cols}, {"HV", d.HV}, {"V", d.V}});
  }});
  in.push_back({"G12-K0", [](MutationTarget& t, uint32_t) -> Out {
    const Dims& d = t.dims;
    // mixed_qkv keeps a positive even q|k part.
    t.spec.at("mixed_qkv").reshape({t.B, d.HV * d.V + 2 * std::max<int64_t>(d.H * d.K, 1)});
    // Hand-made strides [s, 0, 0, 1] pass G10 (PyTorch's own for K = 0, (HV*V, V, 1, 1), fail
    // it); the wrapper's `q_dim % K` then raises ZeroDivisionError, no ValueError of its own.
    t.dims.K = 0;
    reshape_state(t);
    return expect(gdn_error_id::kEmptyHeads);
  }});
  in.push_back({"G12", [](MutationTarget& t, uint32_t) -> Out {
    const Dims& d = t.dims;
    if (d.K < 2) return std::nullopt;  // every q size is a multiple of K = 1
    const int64_t cols = d.HV * d.V + 2 * (d.H * d.K + 1);
    t.spec.at("mixed_qkv").reshape({t.B, cols});
    return expect("G12", {{"qkv_dim", cols}, {"HV", d.HV}, {"V", d.V}, {"K", d.K}});
  }});
  in.push_back({"G13", [](MutationTarget& t, uint32_t) -> Out {
    const Dims& d = t.dims;
    if (d.HV == 0) return std::nullopt;  // every H divides 0
    const int64_t H = d.HV + 1;         // never divides HV
    t.spec.at("mixed_qkv").reshape({t.B, 2 * H * d.K + d.HV * d.V});
    return expect("V22", {{"H", H}, {"HV", d.HV}});
  }});
  in.push_back({"G14", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    TensorSpec& b = t.spec.at("b");
    switch (v % 3) {
      case 0: b.reshape({t.B + 1, d.HV}); break;
      case 1: b.reshape({t.B, d.HV + 1}); break;
      default: b.reshape({t.B, d.HV}).strides = {2 * d.HV, 2}; break;  // every other column
    }
    return expect("G14", {{"(B, HV)", tuple_repr({t.B, d.HV})}});
  }});
  in.push_back({"G15", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    TensorSpec& A_log = t.spec.at("A_log");
    if (v % 2 == 0 || d.HV < 2) A_log.reshape({d.HV + 1});
    else A_log.reshape({d.HV}).strides = {2};
    return expect("G15", {{"(HV,)", tuple_repr({d.HV})}});
  }});
  in.push_back({"G16-short", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    t.spec.at("d_cache").reshape(v % 2 ? std::vector<int64_t>{d.slots} : std::vector<int64_t>{d.slots, d.HV});
    return expect(gdn_error_id::kRingRank);
  }});
  in.push_back({"G16", [](MutationTarget& t, uint32_t) -> Out {
    t.spec.at("d_cache").reshape({t.dims.slots, t.dims.HV, 0, t.dims.V});
    return expect("R4");
  }});
  if (kda) add_kda_gate_inputs(in);
  if (!kda) in.push_back({"G17", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    TensorSpec& a = t.spec.at("a");
    switch (v % 4) {
      case 0: a.reshape({t.B, d.HV, 1}); break;
      case 1: a.reshape({t.B, d.HV > 0 ? d.HV * std::max<int64_t>(d.K, 2) : 1}); break;  // a KDA-shaped gate
      case 2: a.reshape({t.B + 1, d.HV}); break;
      default: a.reshape({t.B * d.HV}); break;
    }
    return expect("G17", {{"(B, HV)", tuple_repr({t.B, d.HV})}, {"tuple(a.shape)", tuple_repr(a.shape)}});
  }});
  if (!kda) in.push_back({"G18", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    TensorSpec& dt = t.spec.at("dt_bias");
    switch (v % 3) {
      case 0: dt.reshape({d.HV, std::max<int64_t>(d.K, 1)}); break;  // a KDA-shaped bias
      case 1: dt.reshape({d.HV + 1}); break;
      default: dt.reshape({}); break;
    }
    return expect("G18", {{"(HV,)", tuple_repr({d.HV})}, {"tuple(dt_bias.shape)", tuple_repr(dt.shape)}});
  }});
  in.push_back({"G19", [](MutationTarget& t, uint32_t v) -> Out {
    static constexpr const char* rings[] = {"d_cache", "k_cache", "g_cache"};
    for (uint32_t i = 0; i < 3; ++i)  // the chosen ring, else the next one that can be strided
      if (make_non_contiguous(t.spec.at(rings[(v + i) % 3]))) return expect("G19");
    return std::nullopt;
  }});
  in.push_back({"G20", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    TensorSpec& dc = t.spec.at("d_cache");
    switch (v % 3) {
      case 0: dc.reshape({d.slots > 0 ? d.slots - 1 : 1, d.HV, d.L, d.V}); break;  // fewer slots than the state
      case 1: dc.reshape({d.slots, d.HV, d.L, d.V + 1}); break;
      default: dc.reshape({d.slots, d.HV, d.L, d.V, 1}); break;
    }
    return expect("G20", {{"(slots, HV, L, V)", tuple_repr({d.slots, d.HV, d.L, d.V})},
                          {"tuple(d_cache.shape)", tuple_repr(dc.shape)}});
  }});
  in.push_back({"G21", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    TensorSpec& kc = t.spec.at("k_cache");
    switch (v % 4) {
      case 0: kc.reshape({d.slots, d.HV != d.H ? d.HV : d.H + 1, d.L, d.K}); break;  // HV heads (GQA)
      case 1: kc.reshape({d.slots, d.H, d.L + 1, d.K}); break;
      case 2: kc.reshape({d.slots > 0 ? d.slots - 1 : 1, d.H, d.L, d.K}); break;
      default: kc.reshape({d.slots, 4 * d.H, d.L, d.K}); break;  // left unsharded over 4 ranks
    }
    return expect("G21", {{"(slots, H, L, K)", tuple_repr({d.slots, d.H, d.L, d.K})},
                          {"tuple(k_cache.shape)", tuple_repr(kc.shape)}});
  }});
  in.push_back({"G22", [kda](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    TensorSpec& gc = t.spec.at("g_cache");
    // (num_state_slots, *g_expect): the KDA path's ring has a gate per key channel.
    std::vector<int64_t> want{d.slots, d.HV, d.L};
    if (kda) want.push_back(d.K);
    switch (v % 3) {
      case 0:  // the other path's ring
        if (kda) gc.reshape({d.slots, d.HV, d.L});
        else gc.reshape({d.slots, d.HV, d.L, std::max<int64_t>(d.K, 1)});
        break;
      case 1: {
        std::vector<int64_t> sh = want;
        sh[1] += 1;
        gc.reshape(sh);
        break;
      }
      default: {
        std::vector<int64_t> sh = want;
        sh[0] = d.slots > 0 ? d.slots - 1 : 1;
        gc.reshape(sh);
        break;
      }
    }
    return expect("G22", {{"(slots, HV, L)", tuple_repr(want)}, {"tuple(g_cache.shape)", tuple_repr(gc.shape)}});
  }});
  in.push_back({"G23", [](MutationTarget& t, uint32_t v) -> Out {
    static const DLDataType bad[] = {{kDLBfloat, 16, 1}, {kDLFloat, 16, 1}, {kDLFloat, 64, 1}, {kDLInt, 32, 1}};
    TensorSpec& gc = t.spec.at("g_cache");
    gc.dtype = bad[v % 4];
    return expect("G23", {{"g_cache.dtype", torch_dtype(gc.dtype)}});
  }});
  in.push_back({"G24", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    TensorSpec& out = t.spec.at("out");
    switch (v % 3) {
      case 0: out.reshape({t.B, d.HV, d.V}); break;
      case 1: out.reshape({t.B, 1, d.HV, d.V + 1}); break;
      default: out.reshape({t.B + 1, 1, d.HV, d.V}); break;
    }
    return expect("G24", {{"(B, 1, HV, V)", tuple_repr({t.B, 1, d.HV, d.V})}, {"tuple(out.shape)", tuple_repr(out.shape)}});
  }});
  in.push_back({"G25", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& idx = t.spec.at("ssm_state_indices");
    switch (v % 3) {
      case 0: idx.dtype = to_dl(ScalarType::Int64); break;
      case 1: idx.reshape({t.B, 1}); break;
      default: idx.dtype = to_dl(ScalarType::Float32); break;
    }
    return expect("G25");
  }});
  in.push_back({"G26", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& wp = t.spec.at("write_pos");
    TensorSpec& idx = t.spec.at("ssm_state_indices");
    (v % 2 == 0 ? wp : idx).reshape({t.B + 1 + v % 3});
    return expect("G26", {{"B", t.B}, {"write_pos.shape[0]", wp.shape[0]}, {"ssm_state_indices.shape[0]", idx.shape[0]}});
  }});
  in.push_back({"G27", [](MutationTarget& t, uint32_t v) -> Out {
    force_flush_of(t).reshape({v % 2 == 0 || t.B == 0 ? t.B + 1 : t.B - 1});
    return expect("G27", {{"B", t.B}});
  }});
  in.push_back({"G32", [kda](MutationTarget& t, uint32_t v) -> Out {
    // K <= 16 at nk = 2 (the tile BKT = next_power_of_2(K) / 2 falls under 16): valid for
    // the KDA contract at K = 16, refused here.
    static constexpr int64_t Ks[] = {16, 9, 2};
    const int64_t K = Ks[v % 3], BK = K == 9 ? 16 : K;
    resize_k(t, K, kda);
    return expect("G32", {{"BKT", BK / 2}, {"nk", 2}, {"BK", BK}});
  }});
  return in;
}

std::vector<ErrorInput> extension_inputs(bool kda) {
  std::vector<ErrorInput> in;
  in.push_back({gdn_error_id::kEmptyHeads, [kda](MutationTarget& t, uint32_t v) -> Out {
    empty_heads(t, v % 2 == 1, kda);
    return expect(gdn_error_id::kEmptyHeads);
  }});
  in.push_back({error_id::kFloatDtype, [](MutationTarget& t, uint32_t v) -> Out {
    static constexpr const char* targets[] = {"mixed_qkv", "a", "b", "A_log", "dt_bias", "initial_state",
                                              "d_cache", "k_cache", "out"};
    static const DLDataType bad[] = {{kDLFloat, 64, 1}, {kDLInt, 32, 1}, {kDLUInt, 8, 1}, {kDLBfloat, 16, 2},
                                     {kDLFloat, 8, 1}};
    t.spec.at(targets[v % 9]).dtype = bad[(v / 9) % 5];
    return expect(error_id::kFloatDtype);
  }});
  in.push_back({error_id::kStrides, [](MutationTarget& t, uint32_t v) -> Out {
    CallSpec& s = t.spec;
    switch (v % 5) {
      case 0: {  // the state broadcast over slots (G10 reads only the inner strides)
        TensorSpec& state = s.at("initial_state");
        const bool can_overlap = state.shape[0] >= 2 && std::find(state.shape.begin(), state.shape.end(), 0) == state.shape.end();
        state.explicit_strides()[0] = can_overlap ? 0 : -1;
        break;
      }
      case 1: s.at("out").explicit_strides()[1] = -3; break;  // the size-1 token dim: still contiguous
      case 2: s.at("ssm_state_indices").explicit_strides()[0] = -1; break;
      case 3: s.at("mixed_qkv").explicit_strides()[0] = -std::max<int64_t>(s.at("mixed_qkv").shape[1], 1); break;
      default: s.at("b").explicit_strides()[0] = -std::max<int64_t>(t.dims.HV, 1); break;  // G14 reads the last stride
    }
    return expect(error_id::kStrides);
  }});
  // The KDA path's K19 wants both gates contiguous: no stride is left for this extension.
  if (!kda) in.push_back({gdn_error_id::kGateStrides, [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    switch (v % 3) {
      case 0: t.spec.at("a").explicit_strides() = {2 * d.HV, 2}; break;  // every other column of a projection
      case 1: t.spec.at("dt_bias").explicit_strides() = {2}; break;
      default: t.spec.at("a").explicit_strides() = {1, 0}; break;  // one logit broadcast over the heads
    }
    return expect(gdn_error_id::kGateStrides);
  }});
  in.push_back({error_id::kExtents, [](MutationTarget& t, uint32_t v) -> Out {
    // 2^63 - 1 or 2^62 slots of at least one 2-byte element, equal in the state and the rings.
    resize_slots(t, v % 2 ? int64_t{1} << 62 : INT64_MAX);
    return expect(error_id::kExtents);
  }});
  in.push_back({gdn_error_id::kDevice, [kda](MutationTarget& t, uint32_t v) -> Out {
    static constexpr const char* targets[] = {"write_pos", "ssm_state_indices", "a", "d_cache", "force_flush"};
    TensorSpec& x = v % 5 == 4 ? force_flush_of(t) : t.spec.at(targets[v % 5]);
    x.device = other_device(t.spec.at("mixed_qkv").device);
    return expect(gdn_error_id::kDevice, {{"operator", triton_operator_name(kda)}});
  }});
  in.push_back({"X-BACKEND", [](MutationTarget& t, uint32_t) -> Out {
    const bool on_cpu = t.spec.at("mixed_qkv").device.device_type == kDLCPU;
    t.spec.backend = on_cpu ? kda::Backend::Cuda : kda::Backend::Cpu;
    return expect(on_cpu ? error_id::kBackendCuda : error_id::kBackendCpu);
  }});
  return in;
}

}  // namespace

std::vector<ErrorInput> triton_replayssm_error_inputs(bool is_kda) {
  std::vector<ErrorInput> all = wrapper_inputs(is_kda);
  for (ErrorInput& e : extension_inputs(is_kda)) all.push_back(std::move(e));
  return all;
}

const std::vector<ErrorInput>& gdn_replayssm_error_inputs() {
  static const std::vector<ErrorInput> list = triton_replayssm_error_inputs(false);
  return list;
}

}  // namespace kda::engine
