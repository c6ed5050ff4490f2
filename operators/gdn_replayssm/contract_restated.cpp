// gdn_replayssm's contract restated (engine/description/contract_restatement.hpp): gdn-replayssm.md's
// checks G1-G32 and the harness extensions after them, in a few lines each on the raw DLPack
// metadata (engine/description/raw_metadata.hpp), not on the code they judge (contract.cpp,
// contract_extensions.cpp). The checks whose text is the KDA catalog's raise its ids (G2 "V2",
// G6 "V8", G11 "V20", G13 "V22", G16 "R4").
#include "operators/gdn_replayssm/contract_restated.hpp"

#include <fmt/format.h>

#include <optional>
#include <string_view>
#include <vector>

#include "contract/catalog_message.hpp"
#include "engine/description/raw_metadata.hpp"

namespace kda::restated {
namespace {

using raw::Wide;

// The sizes gdn-replayssm.md derives, where the tensors have the dims (else -1 / unknown).
struct Derived {
  int64_t B = -1, slots = -1, HV = -1, V = -1, K = -1, L = -1;
  Wide qkv_dim = -1, q_dim = 0, H = 0;
  bool heads_known = false;  // q_dim and H computed (mixed_qkv 2-D, state 4-D, K > 0)
};

Derived derive(const StepArgs& a) {
  Derived d;
  const DLTensor &qkv = *a.mixed_qkv, &st = *a.initial_state;
  if (qkv.ndim >= 1) d.B = qkv.shape[0];
  if (qkv.ndim == 2) d.qkv_dim = qkv.shape[1];
  if (st.ndim == 4) d.slots = st.shape[0], d.HV = st.shape[1], d.V = st.shape[2], d.K = st.shape[3];
  if (a.d_cache->ndim >= 3) d.L = a.d_cache->shape[2];
  if (qkv.ndim == 2 && st.ndim == 4 && d.K > 0) {
    d.q_dim = (d.qkv_dim - static_cast<Wide>(d.HV) * d.V) / 2;
    d.H = d.q_dim / d.K;
    d.heads_known = true;
  }
  return d;
}

// Triton's next_power_of_2(n), n >= 1.
Wide next_pow2(int64_t n) {
  Wide p = 1;
  while (p < n) p *= 2;
  return p;
}

bool contiguous_1d_int32(const DLTensor& t) { return t.ndim == 1 && raw::is_int32(t) && raw::contiguous(t); }

std::vector<const DLTensor*> all_tensors(const StepArgs& a) {
  std::vector<const DLTensor*> v;
  for (const DLTensor* t : {a.mixed_qkv, a.a, a.b, a.A_log, a.dt_bias, static_cast<const DLTensor*>(a.initial_state),
                            static_cast<const DLTensor*>(a.d_cache), static_cast<const DLTensor*>(a.k_cache),
                            static_cast<const DLTensor*>(a.g_cache), static_cast<const DLTensor*>(a.out),
                            a.ssm_state_indices, a.write_pos, a.force_flush})
    if (t) v.push_back(t);
  return v;
}

// PyTorch's limits on a tensor it can create: numel and storage bytes within int64 (strides
// non-negative wherever this is asked: X-STRIDES comes first).
bool too_large(const DLTensor& t) {
  const Wide n = raw::numel(t);
  if (n > INT64_MAX) return true;
  if (n == 0) return false;
  Wide last = 1;
  for (int64_t d = 0; d < t.ndim; ++d) last += raw::wmul(t.shape[d] - 1, raw::stride(t, d));
  return raw::wmul(last, (static_cast<Wide>(t.dtype.bits) * t.dtype.lanes + 7) / 8) > INT64_MAX;
}

// X-STRIDES: a negative stride anywhere, or two elements of a written tensor at one address
// (nullopt: a written tensor too large to enumerate and no other answer).
std::optional<bool> negative_or_overlapping(const StepArgs& a) {
  for (const DLTensor* t : all_tensors(a))
    if (raw::has_negative_stride(*t)) return true;
  bool undecided = false;
  for (const DLTensor* t : {static_cast<const DLTensor*>(a.initial_state), static_cast<const DLTensor*>(a.d_cache),
                            static_cast<const DLTensor*>(a.k_cache), static_cast<const DLTensor*>(a.g_cache),
                            static_cast<const DLTensor*>(a.out)}) {
    const auto o = raw::overlaps(*t);
    if (o && *o) return true;
    undecided |= !o.has_value();
  }
  if (undecided) return std::nullopt;
  return false;
}

bool floats_ok(const StepArgs& a) {
  for (const DLTensor* t : {a.mixed_qkv, a.a, a.b, a.A_log, a.dt_bias, static_cast<const DLTensor*>(a.initial_state),
                            static_cast<const DLTensor*>(a.d_cache), static_cast<const DLTensor*>(a.k_cache),
                            static_cast<const DLTensor*>(a.out)})
    if (!raw::is_float_type(*t)) return false;
  return true;
}

bool one_device(const StepArgs& a) {
  for (const DLTensor* t : all_tensors(a))
    if (!raw::same_device(*t, *a.mixed_qkv)) return false;
  return !a.cache_base || raw::same_device(*a.cache_base, *a.mixed_qkv);
}

std::optional<bool> condition_holds(std::string_view id, const StepArgs& a, Backend backend) {
  const DLTensor &qkv = *a.mixed_qkv, &A = *a.a, &b = *a.b, &alog = *a.A_log, &dt = *a.dt_bias;
  const DLTensor &st = *a.initial_state, &out = *a.out, &idx = *a.ssm_state_indices, &wp = *a.write_pos;
  const DLTensor *ff = a.force_flush, *cb = a.cache_base;
  const Derived d = derive(a);
  const Wide HVV = static_cast<Wide>(d.HV) * d.V;
  if (id == "G1") return qkv.ndim != 2;
  if (id == "V2") return qkv.ndim >= 1 ? std::optional<bool>(raw::stride(qkv, -1) != 1) : std::nullopt;
  if (id == "G3") return b.ndim != 2;
  if (id == "G4") return alog.ndim != 1;
  if (id == "G5") return st.ndim != 4;
  if (id == "V8") return !raw::contiguous(out);
  if (id == "G7") return !contiguous_1d_int32(wp);
  if (id == "G8") return ff && !contiguous_1d_int32(*ff);
  if (id == "G9") return a.circular_replay && (!cb || !contiguous_1d_int32(*cb));
  if (id == "G10")
    return st.ndim == 4 && (raw::stride(st, 1) != static_cast<Wide>(d.V) * d.K || raw::stride(st, 2) != d.K ||
                            raw::stride(st, 3) != 1);
  if (id == "V20") return d.qkv_dim <= HVV || (d.qkv_dim - HVV) % 2 != 0;
  if (id == "G12") return d.heads_known && d.q_dim % d.K != 0;
  if (id == "V22") return d.heads_known && (d.H <= 0 || d.HV % d.H != 0);
  if (id == "G14") return raw::shape(b) != std::vector<int64_t>{d.B, d.HV} || raw::stride(b, -1) != 1;
  if (id == "G15") return alog.shape[0] != d.HV || !raw::contiguous(alog);
  if (id == "X-GDN-RING-RANK") return a.d_cache->ndim < 3;
  if (id == "R4") return d.L >= 0 && d.L < 1;
  if (id == "G17") return A.ndim != 2 || raw::shape(A) != std::vector<int64_t>{d.B, d.HV};
  if (id == "G18") return dt.ndim != 1 || dt.shape[0] != d.HV;
  if (id == "G19") return !raw::contiguous(*a.d_cache) || !raw::contiguous(*a.k_cache) || !raw::contiguous(*a.g_cache);
  if (id == "G20") return raw::shape(*a.d_cache) != std::vector<int64_t>{d.slots, d.HV, d.L, d.V};
  if (id == "G21")
    return d.heads_known && raw::shape(*a.k_cache) != std::vector<int64_t>{d.slots, static_cast<int64_t>(d.H), d.L, d.K};
  if (id == "G22") return raw::shape(*a.g_cache) != std::vector<int64_t>{d.slots, d.HV, d.L};
  if (id == "G23") return !raw::dtype_is(*a.g_cache, kDLFloat, 32);
  if (id == "G24") return raw::shape(out) != std::vector<int64_t>{d.B, 1, d.HV, d.V};
  if (id == "G25") return idx.ndim != 1 || !raw::is_int32(idx);
  if (id == "G26") return (wp.ndim >= 1 && wp.shape[0] != d.B) || (idx.ndim >= 1 && idx.shape[0] != d.B);
  if (id == "G27") return ff && ff->ndim >= 1 && ff->shape[0] != d.B;
  if (id == "G28") return a.circular_replay && cb && raw::shape(*cb) != std::vector<int64_t>{d.B};
  if (id == "G29") return a.predecayed_k_cache;
  if (id == "X-GDN-NK") return a.nk == 0;
  if (id == "G31") return d.K >= 1 && a.nk != 0 && next_pow2(d.K) % a.nk != 0;
  if (id == "G32") return d.K >= 1 && a.nk != 0 && next_pow2(d.K) / a.nk < 16;
  if (id == "X-GDN-EMPTY-HEADS") return d.K == 0 || d.V == 0 || d.HV == 0;
  if (id == "X-DTYPE-FLOAT") return !floats_ok(a);
  if (id == "X-STRIDES") return negative_or_overlapping(a);
  if (id == "X-GDN-GATE-STRIDES") return raw::stride(A, -1) != 1 || raw::stride(dt, 0) != 1;
  if (id == "X-EXTENTS") {
    for (const DLTensor* t : all_tensors(a))
      if (too_large(*t)) return true;
    return false;
  }
  if (id == "X-GDN-DEVICE") return !one_device(a);
  if (id == "X-BACKEND-CPU") return backend == Backend::Cpu && qkv.device.device_type != kDLCPU;
  if (id == "X-BACKEND-CUDA") return backend == Backend::Cuda && qkv.device.device_type != kDLCUDA;
  return std::nullopt;
}

// The exact message of the checks that print plain numbers and shapes, rendered from the
// catalog with the values restated from the metadata.
std::optional<std::string> expected_message(std::string_view id, const StepArgs& a) {
  const Derived d = derive(a);
  if (id == "G1") return catalog_message(id, {{"mixed_qkv.ndim", a.mixed_qkv->ndim}});
  if (id == "G3") return catalog_message(id, {{"b.ndim", a.b->ndim}});
  if (id == "G5") return catalog_message(id, {{"initial_state.ndim", a.initial_state->ndim}});
  if (id == "G14") return catalog_message(id, {{"(B, HV)", raw::tuple_text({d.B, d.HV})}});
  if (id == "G15") return catalog_message(id, {{"(HV,)", raw::tuple_text({d.HV})}});
  if (id == "G17")
    return catalog_message(id, {{"(B, HV)", raw::tuple_text({d.B, d.HV})},
                                {"tuple(a.shape)", raw::tuple_text(raw::shape(*a.a))}});
  if (id == "G18")
    return catalog_message(id, {{"(HV,)", raw::tuple_text({d.HV})},
                                {"tuple(dt_bias.shape)", raw::tuple_text(raw::shape(*a.dt_bias))}});
  if (id == "G20")
    return catalog_message(id, {{"(slots, HV, L, V)", raw::tuple_text({d.slots, d.HV, d.L, d.V})},
                                {"tuple(d_cache.shape)", raw::tuple_text(raw::shape(*a.d_cache))}});
  if (id == "G22")
    return catalog_message(id, {{"(slots, HV, L)", raw::tuple_text({d.slots, d.HV, d.L})},
                                {"tuple(g_cache.shape)", raw::tuple_text(raw::shape(*a.g_cache))}});
  if (id == "G24")
    return catalog_message(id, {{"(B, 1, HV, V)", raw::tuple_text({d.B, 1, d.HV, d.V})},
                                {"tuple(out.shape)", raw::tuple_text(raw::shape(*a.out))}});
  if (id == "G26")
    return catalog_message(id, {{"B", d.B},
                                {"write_pos.shape[0]", a.write_pos->shape[0]},
                                {"ssm_state_indices.shape[0]", a.ssm_state_indices->shape[0]}});
  if (id == "G27") return catalog_message(id, {{"B", d.B}});
  return std::nullopt;
}

std::string judge_acceptance(const StepArgs& a, Backend backend, const Dims& dims) {
  const DLTensor &qkv = *a.mixed_qkv, &A = *a.a, &b = *a.b, &alog = *a.A_log, &dt = *a.dt_bias;
  const DLTensor &st = *a.initial_state, &out = *a.out, &idx = *a.ssm_state_indices, &wp = *a.write_pos;
  std::vector<std::string> broken;
  const auto need = [&broken](bool ok, const char* what) {
    if (!ok) broken.push_back(what);
  };
  need(qkv.ndim == 2 && raw::stride(qkv, -1) == 1, "mixed_qkv 2-D with unit last stride");
  need(st.ndim == 4, "initial_state 4-D");
  need(a.d_cache->ndim >= 3, "d_cache at least 3-D");
  if (!broken.empty()) return fmt::format("accepted, but: {}", fmt::join(broken, "; "));
  const int64_t B = qkv.shape[0], slots = st.shape[0], HV = st.shape[1], V = st.shape[2], K = st.shape[3];
  const int64_t L = a.d_cache->shape[2];
  need(K > 0 && V > 0 && HV > 0, "K, V and HV > 0");
  if (!broken.empty()) return fmt::format("accepted, but: {}", fmt::join(broken, "; "));
  const Wide HVV = static_cast<Wide>(HV) * V;
  const Wide q_dim = (qkv.shape[1] - HVV) / 2, H = q_dim / K;
  need(qkv.shape[1] > HVV && (qkv.shape[1] - HVV) % 2 == 0 && q_dim % K == 0 && H >= 1 && HV % H == 0,
       "mixed_qkv last dim == 2*H*K + HV*V with HV % H == 0");
  need(raw::stride(st, 1) == static_cast<Wide>(V) * K && raw::stride(st, 2) == K && raw::stride(st, 3) == 1,
       "initial_state inner strides (V*K, K, 1)");
  need(raw::shape(b) == std::vector<int64_t>{B, HV} && raw::stride(b, -1) == 1, "b [B, HV], unit last stride");
  need(alog.ndim == 1 && alog.shape[0] == HV && raw::contiguous(alog), "A_log contiguous [HV]");
  need(raw::shape(A) == std::vector<int64_t>{B, HV} && raw::stride(A, -1) == 1, "a [B, HV], unit last stride");
  need(dt.ndim == 1 && dt.shape[0] == HV && raw::stride(dt, 0) == 1, "dt_bias [HV], stride 1");
  need(L >= 1, "L >= 1");
  need(raw::contiguous(*a.d_cache) && raw::contiguous(*a.k_cache) && raw::contiguous(*a.g_cache), "rings contiguous");
  need(raw::shape(*a.d_cache) == std::vector<int64_t>{slots, HV, L, V}, "d_cache [slots, HV, L, V]");
  need(raw::shape(*a.k_cache) == std::vector<int64_t>{slots, static_cast<int64_t>(H), L, K}, "k_cache [slots, H, L, K]");
  need(raw::shape(*a.g_cache) == std::vector<int64_t>{slots, HV, L}, "g_cache [slots, HV, L]");
  need(raw::dtype_is(*a.g_cache, kDLFloat, 32), "g_cache float32");
  need(raw::contiguous(out) && raw::shape(out) == std::vector<int64_t>{B, 1, HV, V}, "out contiguous (B, 1, HV, V)");
  need(idx.ndim == 1 && raw::is_int32(idx) && idx.shape[0] == B, "ssm_state_indices int32 [B]");
  need(contiguous_1d_int32(wp) && wp.shape[0] == B, "write_pos contiguous int32 [B]");
  need(!a.force_flush || (contiguous_1d_int32(*a.force_flush) && a.force_flush->shape[0] == B),
       "force_flush contiguous int32 [B] or absent");
  need(!a.predecayed_k_cache, "no pre-decayed keys");
  need(!a.circular_replay || (a.cache_base && contiguous_1d_int32(*a.cache_base) && a.cache_base->shape[0] == B),
       "cache_base contiguous int32 [B] under circular replay");
  const Wide BK = next_pow2(K);
  need(a.nk > 0 && BK % a.nk == 0 && BK / a.nk >= 16, "nk divides next_power_of_2(K) into tiles of >= 16");
  need(floats_ok(a), "float tensors float32/bfloat16/float16");
  need(one_device(a), "one device");
  bool backend_ok = true;
  for (const DLTensor* t : all_tensors(a)) {
    if (backend == Backend::Cpu) backend_ok &= t->device.device_type == kDLCPU;
    if (backend == Backend::Cuda) backend_ok &= t->device.device_type == kDLCUDA;
  }
  need(backend_ok, "the backend's device type");
  const auto bad_strides = negative_or_overlapping(a);
  need(!bad_strides || !*bad_strides, "no negative stride, no overlapping written tensor");
  bool extents_ok = true;
  for (const DLTensor* t : all_tensors(a)) extents_ok &= !too_large(*t);
  need(extents_ok, "every numel and byte extent within int64");
  need(dims == Dims{B, static_cast<int64_t>(H), HV, K, V, L, slots}, "returned Dims == the shapes' dims");
  if (broken.empty()) return "";
  return fmt::format("accepted, but: {}", fmt::join(broken, "; "));
}

}  // namespace

const engine::ContractRestatement gdn_replayssm{
    .condition_holds = &condition_holds,
    .expected_message = &expected_message,
    .judge_acceptance = &judge_acceptance,
};

}  // namespace kda::restated
