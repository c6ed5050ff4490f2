// kda_replayssm's and kda_packed_decode's contracts restated (engine/description/contract_restatement.hpp):
// contract.md's conditions (P0, W1-W3, V1-V22, R1-R10, the extensions) in a few lines each, on
// the raw DLPack metadata (engine/description/raw_metadata.hpp), not on the code they judge
// (contract_v_checks.cpp & co.). The plain packed decode's are the same with `a` and `dt_bias`
// as given (no W1-W3) and no rings, write_pos or force_flush (null in its args).
#include "operators/kda_common/contract_restated.hpp"

#include <fmt/format.h>

#include <optional>
#include <string_view>
#include <vector>

#include "contract/catalog_message.hpp"
#include "engine/description/raw_metadata.hpp"

namespace kda::restated {
namespace {

using raw::Wide;

const DLTensor* written(const StepArgs& a, int i) {
  const DLTensor* w[] = {a.initial_state, a.d_cache, a.k_cache, a.g_cache, a.out};
  return w[i];
}

// The call's tensors (an operator's absent ones left out).
std::vector<const DLTensor*> all_tensors(const StepArgs& a) {
  std::vector<const DLTensor*> v;
  for (const DLTensor* t : {a.mixed_qkv, a.a, a.b, a.A_log, a.dt_bias, static_cast<const DLTensor*>(a.initial_state),
                            static_cast<const DLTensor*>(a.d_cache), static_cast<const DLTensor*>(a.k_cache),
                            static_cast<const DLTensor*>(a.g_cache), static_cast<const DLTensor*>(a.out),
                            a.ssm_state_indices, a.write_pos, a.force_flush})
    if (t) v.push_back(t);
  return v;
}

// The sizes that contract.md derives, read where the tensors have the dims (else 0/-1).
struct Derived {
  int64_t B = -1, HV = -1, V = -1, K = -1, L = -1;
  Wide qk = 0, q = 0, H = 0;  // qk_dim, q_dim, H (V20-V22)
  bool heads_known = false;   // qk, q, H computed (mixed_qkv 2-D, state 4-D, K > 0)
};

Derived derive(const StepArgs& a) {
  Derived d;
  const DLTensor &qkv = *a.mixed_qkv, &st = *a.initial_state;
  if (qkv.ndim >= 1) d.B = qkv.shape[0];
  if (st.ndim == 4) d.HV = st.shape[1], d.V = st.shape[2], d.K = st.shape[3];
  if (a.d_cache && a.d_cache->ndim >= 3) d.L = a.d_cache->shape[2];
  if (qkv.ndim == 2 && st.ndim == 4 && d.K > 0) {
    d.qk = static_cast<Wide>(qkv.shape[1]) - static_cast<Wide>(d.HV) * d.V;
    d.q = d.qk / 2;
    d.H = d.q / d.K;
    d.heads_known = true;
  }
  return d;
}

bool tail_is(const DLTensor& t, Wide x, Wide y, Wide z) {
  return t.ndim == 4 && t.shape[1] == x && t.shape[2] == y && t.shape[3] == z;
}

// a.numel() % B without forming the product (B > 0).
Wide numel_mod(const DLTensor& t, int64_t B) {
  Wide r = 1 % B;
  for (int64_t i = 0; i < t.ndim; ++i) r = (r * (t.shape[i] % B)) % B;
  return r;
}

// Whether a.numel() / B is past int64 (B > 0): a (B, -1) view of `a` no tensor can hold.
bool row_length_past_int64(const DLTensor& t, int64_t B) {
  for (int64_t i = 0; i < t.ndim; ++i)
    if (t.shape[i] == 0) return false;
  const Wide limit = static_cast<Wide>(INT64_MAX) * B;
  Wide n = 1;
  for (int64_t i = 0; i < t.ndim; ++i) {
    if (n > limit / t.shape[i]) return true;
    n *= t.shape[i];
  }
  return n > limit;
}

std::optional<bool> any_overlap_or_negative(const StepArgs& a) {
  for (const DLTensor* t : all_tensors(a))
    if (raw::has_negative_stride(*t)) return true;
  bool undecided = false;
  for (int i = 0; i < 5; ++i) {
    if (!written(a, i)) continue;
    const auto o = raw::overlaps(*written(a, i));
    if (o && *o) return true;
    undecided |= !o.has_value();
  }
  if (undecided) return std::nullopt;
  return false;
}

// PyTorch's limits on a tensor it can create: numel and storage bytes within int64 (strides
// are non-negative wherever this is asked: X-STRIDES comes first).
bool too_large(const DLTensor& t) {
  const Wide n = raw::numel(t);
  if (n > INT64_MAX) return true;
  if (n == 0) return false;
  Wide last = 1;  // the farthest element offset + 1
  for (int64_t d = 0; d < t.ndim; ++d) last += raw::wmul(t.shape[d] - 1, raw::stride(t, d));
  return raw::wmul(last, (static_cast<Wide>(t.dtype.bits) * t.dtype.lanes + 7) / 8) > INT64_MAX;
}

bool any_too_large(const StepArgs& a) {
  for (const DLTensor* t : all_tensors(a))
    if (too_large(*t)) return true;
  return false;
}

// Whether check `id`'s own condition holds for the call (nullopt: not decided here).
// The plain packed decode's conditions where they read `a` and `dt_bias` as given.
std::optional<bool> packed_condition_holds(std::string_view id, const StepArgs& a, const Derived& d) {
  const DLTensor &A = *a.a, &b = *a.b, &alog = *a.A_log, &dt = *a.dt_bias;
  if (id == "V3") return A.ndim != 2 || b.ndim != 2;
  if (id == "V4") return (A.ndim == 2 && raw::stride(A, -1) != 1) || (b.ndim == 2 && raw::stride(b, -1) != 1);
  if (id == "V5") return alog.ndim != 1 || dt.ndim != 1;
  if (id == "V6") return (alog.ndim == 1 && raw::stride(alog, 0) != 1) || (dt.ndim == 1 && raw::stride(dt, 0) != 1);
  if (id == "V10") return (A.ndim >= 1 && A.shape[0] != d.B) || (b.ndim >= 1 && b.shape[0] != d.B);
  if (id == "V15") return A.ndim == 2 && A.shape[1] != static_cast<Wide>(d.HV) * d.K;
  return std::nullopt;
}

std::optional<bool> condition_holds(std::string_view id, const StepArgs& a, Backend backend, bool packed) {
  const DLTensor &qkv = *a.mixed_qkv, &A = *a.a, &b = *a.b, &alog = *a.A_log, &dt = *a.dt_bias;
  const DLTensor &st = *a.initial_state, &out = *a.out, &idx = *a.ssm_state_indices;
  const DLTensor *ff = a.force_flush;
  const Derived d = derive(a);
  if (packed)
    if (const auto holds = packed_condition_holds(id, a, d)) return holds;
  if (id.starts_with("R") || id == "X-VIEW-A" || id == "X-RING-SLOTS") {
    if (!a.write_pos || !a.d_cache) return false;  // an operator without rings cannot raise them
  }
  const DLTensor& wp = a.write_pos ? *a.write_pos : idx;  // read by R1 and R2, which have it here
  if (id == "W1") return (A.ndim != 2 && A.ndim != 3) || !raw::contiguous(A);
  if (id == "W2") return (dt.ndim != 1 && dt.ndim != 2) || !raw::contiguous(dt);
  if (id == "V1") return qkv.ndim != 2;
  if (id == "V2") return qkv.ndim >= 1 && raw::stride(qkv, -1) != 1;
  if (id == "V3") return b.ndim != 2;  // the flat `a` is 2-D
  if (id == "V4") return b.ndim == 2 && raw::stride(b, -1) != 1 ? std::optional<bool>(true) : std::nullopt;
  if (id == "V5") return alog.ndim != 1;  // the flat dt_bias is 1-D
  if (id == "V6") return alog.ndim == 1 && raw::stride(alog, 0) != 1 ? std::optional<bool>(true) : std::nullopt;
  if (id == "V7") return idx.ndim != 1;
  if (id == "V8") return !raw::contiguous(out);
  if (id == "V9") {
    for (const DLTensor* t : {a.a, a.b, a.A_log, a.dt_bias, static_cast<const DLTensor*>(a.initial_state),
                              static_cast<const DLTensor*>(a.out), a.ssm_state_indices})
      if (!raw::same_device(*t, qkv)) return true;
    return false;
  }
  if (id == "V10") return b.ndim >= 1 && b.shape[0] != d.B;
  if (id == "V11") return idx.ndim >= 1 && idx.shape[0] != d.B;
  if (id == "V12") return st.ndim != 4;
  if (id == "V13") return st.ndim >= 1 && raw::stride(st, -1) != 1;
  if (id == "V14") return st.ndim == 4 && (!raw::is_pow2(d.K) || !raw::is_pow2(d.V));
  if (id == "V15") {
    const Wide n = raw::numel(A);
    if (d.B <= 0 || n >= raw::kWideSat) return std::nullopt;
    return n / d.B != static_cast<Wide>(d.HV) * d.K;
  }
  if (id == "V16") return b.ndim == 2 && b.shape[1] != d.HV;
  if (id == "V17") return alog.ndim == 1 && alog.shape[0] != d.HV;
  if (id == "V18") return raw::numel(dt) != static_cast<Wide>(d.HV) * d.K;
  if (id == "V19") return raw::shape(out) != std::vector<int64_t>{d.B, 1, d.HV, d.V};
  if (id == "V20") return d.heads_known && (d.qk <= 0 || d.qk % 2 != 0);
  if (id == "V21") return d.heads_known && d.q % d.K != 0;
  if (id == "V22") return d.heads_known && (d.H <= 0 || d.HV % d.H != 0);
  if (id == "R1") return wp.ndim != 1 || !raw::is_int32(wp);
  if (id == "R2") return wp.ndim == 1 && wp.shape[0] != d.B;
  if (id == "R3") return ff && (ff->ndim != 1 || !raw::is_int32(*ff) || ff->shape[0] != d.B);
  if (id == "R4") return d.L >= 0 && d.L < 1;
  if (id == "R5") return !tail_is(*a.d_cache, d.HV, d.L, d.V);
  if (id == "R6") return !tail_is(*a.k_cache, d.H, d.L, d.K);
  if (id == "R7") return !tail_is(*a.g_cache, d.HV, d.L, d.K);
  if (id == "R8") return !raw::dtype_is(*a.g_cache, kDLFloat, 32);
  if (id == "R9") {
    for (const DLTensor* t : {static_cast<const DLTensor*>(a.d_cache), static_cast<const DLTensor*>(a.k_cache),
                              static_cast<const DLTensor*>(a.g_cache), a.write_pos})
      if (!raw::same_device(*t, qkv)) return true;
    return false;
  }
  if (id == "R10") return ff && !raw::same_device(*ff, qkv);
  if (id == "X-VIEW-A")  // W1 passed: `a` is contiguous
    return d.B <= 0 || numel_mod(A, d.B) != 0 || row_length_past_int64(A, d.B);
  if (id == "X-DTYPE-FLOAT") {
    for (const DLTensor* t : {a.mixed_qkv, a.a, a.b, a.A_log, a.dt_bias, static_cast<const DLTensor*>(a.initial_state),
                              static_cast<const DLTensor*>(a.d_cache), static_cast<const DLTensor*>(a.k_cache),
                              static_cast<const DLTensor*>(a.out)})
      if (t && !raw::is_float_type(*t)) return true;
    return false;
  }
  if (id == "X-DTYPE-INDEX") return !raw::is_int32(idx) && !raw::dtype_is(idx, kDLInt, 64);
  if (id == "X-RING-SLOTS") {
    if (st.ndim < 1) return std::nullopt;
    for (const DLTensor* r : {a.d_cache, a.k_cache, a.g_cache})
      if (r->ndim >= 1 && r->shape[0] != st.shape[0]) return true;
    return false;
  }
  if (id == "X-STRIDES") return any_overlap_or_negative(a);
  if (id == "X-EXTENTS") return any_too_large(a);
  if (id == "X-BACKEND-CPU" || id == "X-BACKEND-CUDA") {
    const int want = id == "X-BACKEND-CPU" ? kDLCPU : kDLCUDA;
    if ((want == kDLCPU) != (backend == Backend::Cpu) || backend == Backend::Any) return false;
    for (const DLTensor* t : all_tensors(a))
      if (t->device.device_type != want) return true;
    return false;
  }
  return std::nullopt;
}

// The exact message of the templates that print plain numbers and shapes, rendered from the
// catalog with the values restated from the metadata.
std::optional<std::string> expected_message(std::string_view id, const StepArgs& a, bool packed) {
  const Derived d = derive(a);
  const DLTensor &b = *a.b, &idx = *a.ssm_state_indices;
  // ReplaySSM's flat `a` is 2-D with B rows; the plain packed decode's `a` is as given.
  const int64_t a_ndim = packed ? a.a->ndim : 2;
  const int64_t a0 = !packed ? d.B : a.a->ndim >= 1 ? a.a->shape[0] : 0;
  if (id == "V1") return catalog_message(id, {{"ndim", a.mixed_qkv->ndim}});
  if (id == "V3") return catalog_message(id, {{"a.ndim", a_ndim}, {"b.ndim", b.ndim}});
  if (id == "V7") return catalog_message(id, {{"ndim", idx.ndim}});
  if (id == "V10") return catalog_message(id, {{"B", d.B}, {"a0", a0}, {"b0", b.shape[0]}});
  if (id == "V11")
    return catalog_message(id, {{"tuple(ssm_state_indices.shape)", raw::tuple_text(raw::shape(idx))}, {"B", d.B}});
  if (id == "V12") return catalog_message(id, {{"ndim", a.initial_state->ndim}});
  if (id == "V14") return catalog_message(id, {{"K", d.K}, {"V", d.V}});
  if (id == "V16") return catalog_message(id, {{"HV", d.HV}, {"tuple(b.shape)", raw::tuple_text(raw::shape(b))}});
  if (id == "V17") return catalog_message(id, {{"HV", d.HV}, {"numel", a.A_log->shape[0]}});
  if (id == "V19")
    return catalog_message(id, {{"(B, 1, HV, V)", raw::tuple_text({d.B, 1, d.HV, d.V})},
                                {"tuple(out.shape)", raw::tuple_text(raw::shape(*a.out))}});
  if (id == "V20") return catalog_message(id, {{"qkv_dim", a.mixed_qkv->shape[1]}, {"HV", d.HV}, {"V", d.V}});
  if (id == "V22") return catalog_message(id, {{"H", raw::wide_text(d.H)}, {"HV", d.HV}});
  if (id == "R2") return catalog_message(id, {{"(batch,)", raw::tuple_text({d.B})}});
  return std::nullopt;
}

std::string judge_acceptance(const StepArgs& a, Backend backend, const Dims& dims, bool packed) {
  const DLTensor &qkv = *a.mixed_qkv, &A = *a.a, &b = *a.b, &alog = *a.A_log, &dt = *a.dt_bias;
  const DLTensor &st = *a.initial_state, &out = *a.out, &idx = *a.ssm_state_indices;
  std::vector<std::string> broken;
  const auto need = [&broken](bool ok, const char* what) {
    if (!ok) broken.push_back(what);
  };
  need(qkv.ndim == 2 && raw::stride(qkv, -1) == 1, "mixed_qkv 2-D with unit last stride");
  if (!broken.empty() || st.ndim != 4) {
    need(st.ndim == 4, "initial_state 4-D");
    return fmt::format("accepted, but: {}", fmt::join(broken, "; "));
  }
  const int64_t B = qkv.shape[0], HV = st.shape[1], V = st.shape[2], K = st.shape[3];
  const Wide HVK = static_cast<Wide>(HV) * K;
  if (packed) {
    need(A.ndim == 2 && A.shape[0] == B && A.shape[1] == HVK && raw::stride(A, -1) == 1, "a [B, HV*K], unit last stride");
    need(dt.ndim == 1 && dt.shape[0] == HVK && raw::stride(dt, 0) == 1, "dt_bias [HV*K], stride 1");
  } else {
    need(B > 0, "B > 0 (a.view(B, -1))");
    need((A.ndim == 2 || A.ndim == 3) && raw::contiguous(A), "a contiguous 2-D or 3-D");
    const Wide a_numel = raw::numel(A);
    need(a_numel >= raw::kWideSat || a_numel == raw::wmul(B, HVK), "a.numel() == B*HV*K");
    need((dt.ndim == 1 || dt.ndim == 2) && raw::contiguous(dt) && raw::numel(dt) == HVK,
         "dt_bias contiguous, HV*K elements");
  }
  need(b.ndim == 2 && b.shape[0] == B && b.shape[1] == HV && raw::stride(b, -1) == 1, "b [B, HV], unit last stride");
  need(alog.ndim == 1 && alog.shape[0] == HV && raw::stride(alog, 0) == 1, "A_log [HV], stride 1");
  need(idx.ndim == 1 && idx.shape[0] == B, "ssm_state_indices [B]");
  need(raw::contiguous(out) && raw::shape(out) == std::vector<int64_t>{B, 1, HV, V}, "out contiguous (B, 1, HV, V)");
  need(raw::stride(st, -1) == 1, "initial_state unit last stride");
  need(raw::is_pow2(K) && raw::is_pow2(V), "K and V powers of two");
  const Wide H = dims.H;
  need(H >= 1 && HV % H == 0 && qkv.shape[1] == 2 * H * K + static_cast<Wide>(HV) * V,
       "mixed_qkv last dim == 2*H*K + HV*V with HV % H == 0");
  const int64_t slots = st.shape[0];
  int64_t L = 0;
  if (!packed) {
    const DLTensor& wp = *a.write_pos;
    need(wp.ndim == 1 && raw::is_int32(wp) && wp.shape[0] == B, "write_pos int32 [B]");
    need(!a.force_flush || (a.force_flush->ndim == 1 && raw::is_int32(*a.force_flush) && a.force_flush->shape[0] == B),
         "force_flush int32 [B] or absent");
    L = a.d_cache->ndim == 4 ? a.d_cache->shape[2] : 0;
    need(L >= 1 && tail_is(*a.d_cache, HV, L, V) && a.d_cache->shape[0] == slots, "d_cache [slots, HV, L, V], L >= 1");
    need(tail_is(*a.k_cache, H, L, K) && a.k_cache->shape[0] == slots, "k_cache [slots, H, L, K]");
    need(tail_is(*a.g_cache, HV, L, K) && a.g_cache->shape[0] == slots, "g_cache [slots, HV, L, K]");
    need(raw::dtype_is(*a.g_cache, kDLFloat, 32), "g_cache float32");
  }
  bool floats = true, devices = true, backend_ok = true;
  for (const DLTensor* t : {a.mixed_qkv, a.a, a.b, a.A_log, a.dt_bias, static_cast<const DLTensor*>(a.initial_state),
                            static_cast<const DLTensor*>(a.d_cache), static_cast<const DLTensor*>(a.k_cache),
                            static_cast<const DLTensor*>(a.out)})
    floats &= !t || raw::is_float_type(*t);
  need(floats, "float tensors float32/bfloat16/float16");
  need(raw::is_int32(idx) || raw::dtype_is(idx, kDLInt, 64), "ssm_state_indices int32/int64");
  for (const DLTensor* t : all_tensors(a)) {
    devices &= raw::same_device(*t, qkv);
    if (backend == Backend::Cpu) backend_ok &= t->device.device_type == kDLCPU;
    if (backend == Backend::Cuda) backend_ok &= t->device.device_type == kDLCUDA;
  }
  need(devices, "one device");
  need(backend_ok, "the backend's device type");
  const auto bad_strides = any_overlap_or_negative(a);
  need(!bad_strides || !*bad_strides, "no negative stride, no overlapping written tensor");
  need(!any_too_large(a), "every numel and byte extent within int64");
  need(dims == Dims{B, static_cast<int64_t>(H), HV, K, V, L, slots}, "returned Dims == the shapes' dims");
  if (broken.empty()) return "";
  return fmt::format("accepted, but: {}", fmt::join(broken, "; "));
}

}  // namespace

namespace {

template <bool kPacked>
engine::ContractRestatement restatement() {
  return {
      .condition_holds = [](std::string_view id, const StepArgs& a, Backend backend) {
        return condition_holds(id, a, backend, kPacked);
      },
      .expected_message = [](std::string_view id, const StepArgs& a) { return expected_message(id, a, kPacked); },
      .judge_acceptance = [](const StepArgs& a, Backend backend, const Dims& dims) {
        return judge_acceptance(a, backend, dims, kPacked);
      },
  };
}

}  // namespace

engine::ContractRestatement kda_contract_restated(bool packed) {
  return packed ? restatement<true>() : restatement<false>();
}

}  // namespace kda::restated
