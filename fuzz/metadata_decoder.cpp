#include "fuzz/metadata_decoder.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "contract/checked_int.hpp"
#include "contract/scalar_type.hpp"
#include "contract/tensor_view.hpp"

namespace kda::fuzz {
namespace {

using Fdp = FuzzedDataProvider;

// One argument before it becomes a HostTensor.
struct Spec {
  DLDataType dtype{};
  std::vector<int64_t> shape, strides;  // strides ignored while null_strides
  bool null_strides = true;
  DLDevice device{kDLCPU, 0};
};

// Order of the tensors (mutations pick one by number).
enum Arg { kQkv, kA, kB, kALog, kDt, kState, kD, kK, kG, kOut, kIdx, kWp, kFf, kArgCount };

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr std::array<int64_t, 7> kHuge = {INT32_MAX, int64_t{1} << 31, (int64_t{1} << 32) + 1, int64_t{1} << 40,
                                          (int64_t{1} << 62) + 1, int64_t{1} << 62, kMax};

int64_t sat(i128 v) { return clamp_to_i64(v); }
int64_t sat_mul(int64_t a, int64_t b) { return sat(static_cast<i128>(a) * b); }
int64_t sat_add(int64_t a, int64_t b) { return sat(static_cast<i128>(a) + b); }

template <class T, std::size_t N>
T pick(Fdp& p, const std::array<T, N>& from) {
  return from[p.ConsumeIntegralInRange<std::size_t>(0, N - 1)];
}

// A size: the typical one when the bytes run out (selector 0), else edge values.
int64_t pick_count(Fdp& p, int64_t typical) {
  switch (p.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: return typical;
    case 1: return 0;
    case 2: return 1;
    case 3: return p.ConsumeIntegralInRange<int64_t>(2, 9);
    case 4: return sat_add(typical, 1);
    case 5: return p.ConsumeIntegralInRange<int64_t>(10, 300);
    case 6: return pick(p, kHuge);
    default: return p.ConsumeIntegralInRange<int64_t>(0, kMax);
  }
}

// K or V: mostly powers of two (V14), sometimes not.
int64_t pick_head_dim(Fdp& p, int64_t typical) {
  switch (p.ConsumeIntegralInRange<int>(0, 5)) {
    case 0: return typical;
    case 1: return int64_t{1} << p.ConsumeIntegralInRange<int>(0, 8);
    case 2: return 0;
    case 3: return p.ConsumeIntegralInRange<int64_t>(3, 200);
    case 4: return int64_t{1} << p.ConsumeIntegralInRange<int>(30, 62);
    default: return p.ConsumeIntegralInRange<int64_t>(0, kMax);
  }
}

int64_t pick_stride(Fdp& p, int64_t current) {
  switch (p.ConsumeIntegralInRange<int>(0, 9)) {
    case 0: return sat_mul(current, 2);  // padded
    case 1: return sat_add(current, 1);
    case 2: return 0;
    case 3: return -1;
    case 4: return current == kMin ? kMax : -current;
    case 5: return p.ConsumeIntegralInRange<int64_t>(1, 50) * 2 + 1;  // odd
    case 6: return pick(p, kHuge);
    case 7: return kMin;
    case 8: return p.ConsumeIntegralInRange<int64_t>(1, 8);  // small: interleaved, non-nested layouts
    default: return p.ConsumeIntegral<int64_t>();
  }
}

DLDataType pick_float_dtype(Fdp& p) {
  switch (p.ConsumeIntegralInRange<int>(0, 2)) {
    case 0: return to_dl(ScalarType::BFloat16);
    case 1: return to_dl(ScalarType::Float32);
    default: return to_dl(ScalarType::Float16);
  }
}

// Any DLPack dtype: the six codes of DLPack 0.6, later codes (bool, float8, ...) and raw
// bytes; bits and lanes likewise (lanes 0 and bits 0 included).
DLDataType pick_any_dtype(Fdp& p) {
  DLDataType t{};
  const int code = p.ConsumeIntegralInRange<int>(0, 7);
  t.code = code < 6 ? static_cast<uint8_t>(code) : code == 6 ? p.ConsumeIntegralInRange<uint8_t>(6, 20)
                                                            : p.ConsumeIntegral<uint8_t>();
  constexpr std::array<uint8_t, 6> bits = {16, 32, 64, 8, 1, 128};
  t.bits = p.ConsumeBool() ? pick(p, bits) : p.ConsumeIntegral<uint8_t>();
  switch (p.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: t.lanes = 1; break;
    case 1: t.lanes = 2; break;
    case 2: t.lanes = 4; break;
    default: t.lanes = p.ConsumeIntegral<uint16_t>(); break;
  }
  return t;
}

DLDevice pick_device(Fdp& p) {
  switch (p.ConsumeIntegralInRange<int>(0, 2)) {
    case 0: return {kDLCPU, 0};
    case 1: return {kDLCUDA, 0};
    default: return {kDLCUDA, p.ConsumeIntegralInRange<int32_t>(1, 7)};
  }
}

// Device types stay in 0..15: DLDeviceType has no fixed underlying type, and its enumerators
// (1..13 in DLPack 0.6) make 0..15 its range of values; another value is undefined behaviour
// to create or load (UBSan's -fsanitize=enum said so on this decoder's first version).
DLDevice pick_any_device(Fdp& p) {
  constexpr std::array<int32_t, 7> types = {kDLCPU, kDLCUDA, kDLCUDAHost, kDLROCM, kDLMetal, kDLCUDAManaged, 0};
  const int32_t type = p.ConsumeBool() ? pick(p, types) : p.ConsumeIntegralInRange<int32_t>(0, 15);
  const int32_t id = p.ConsumeBool() ? p.ConsumeIntegralInRange<int32_t>(0, 3) : p.ConsumeIntegral<int32_t>();
  return {static_cast<DLDeviceType>(type), id};
}

double pick_double(Fdp& p, double typical) {
  switch (p.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: return typical;
    case 1: return std::numeric_limits<double>::infinity();
    case 2: return -std::numeric_limits<double>::infinity();
    case 3: return std::numeric_limits<double>::quiet_NaN();
    case 4: return 0.0;
    case 5: return std::numeric_limits<double>::denorm_min();
    case 6: return p.ConsumeFloatingPointInRange<double>(-100.0, 100.0);
    default: return std::bit_cast<double>(p.ConsumeIntegral<uint64_t>());
  }
}

void make_explicit(Spec& s) {
  if (s.null_strides) s.strides = compact_strides(s.shape);
  s.null_strides = false;
}

Spec tensor(DLDataType dtype, std::vector<int64_t> shape, DLDevice device, bool explicit_strides) {
  Spec s{dtype, std::move(shape), {}, true, device};
  if (explicit_strides) make_explicit(s);
  return s;
}

// The plausible call: every tensor shaped as contract.md's table says for the dims drawn.
std::array<Spec, kArgCount> plausible_call(Fdp& p, bool& force_flush_present) {
  const int64_t B = pick_count(p, 2);
  const int64_t H = pick_count(p, 1);
  constexpr std::array<int64_t, 4> groups = {2, 1, 4, 3};
  const int64_t HV = sat_mul(H, pick(p, groups));
  const int64_t K = pick_head_dim(p, 4), V = pick_head_dim(p, 4);
  const int64_t L = pick_count(p, 3), slots = pick_count(p, sat_add(B, 1));
  const DLDevice dev = pick_device(p);
  const DLDataType act = pick_float_dtype(p);
  const DLDataType idx = p.ConsumeBool() ? to_dl(ScalarType::Int64) : to_dl(ScalarType::Int32);
  const DLDataType i32 = to_dl(ScalarType::Int32), f32 = to_dl(ScalarType::Float32);
  const bool a_3d = p.ConsumeBool(), dt_2d = p.ConsumeBool();
  force_flush_present = !p.ConsumeBool();
  auto ex = [&p] { return p.ConsumeBool(); };  // explicit compact strides instead of null
  const int64_t qkv_dim = sat_add(sat_mul(2, sat_mul(H, K)), sat_mul(HV, V));
  std::array<Spec, kArgCount> s;
  s[kQkv] = tensor(act, {B, qkv_dim}, dev, ex());
  s[kA] = tensor(act, a_3d ? std::vector<int64_t>{B, HV, K} : std::vector<int64_t>{B, sat_mul(HV, K)}, dev, ex());
  s[kB] = tensor(act, {B, HV}, dev, ex());
  s[kALog] = tensor(act, {HV}, dev, ex());
  s[kDt] = tensor(act, dt_2d ? std::vector<int64_t>{HV, K} : std::vector<int64_t>{sat_mul(HV, K)}, dev, ex());
  s[kState] = tensor(pick_float_dtype(p), {slots, HV, V, K}, dev, ex());
  const DLDataType ring = pick_float_dtype(p);
  s[kD] = tensor(ring, {slots, HV, L, V}, dev, ex());
  s[kK] = tensor(ring, {slots, H, L, K}, dev, ex());
  s[kG] = tensor(f32, {slots, HV, L, K}, dev, ex());
  s[kOut] = tensor(pick_float_dtype(p), {B, 1, HV, V}, dev, ex());
  s[kIdx] = tensor(idx, {B}, dev, ex());
  s[kWp] = tensor(i32, {B}, dev, ex());
  s[kFf] = tensor(i32, {B}, dev, ex());
  if (p.ConsumeBool()) {  // padded slot strides on the state and the rings (an envelope)
    constexpr std::array<int64_t, 4> pads = {257, 1, 3, int64_t{1} << 40};
    const int64_t pad = pick(p, pads);
    for (Arg a : {kState, kD, kK, kG}) {
      make_explicit(s[a]);
      s[a].strides[0] = sat_add(s[a].strides[0], pad);
    }
  }
  return s;
}

void mutate(Fdp& p, Spec& s, bool& force_flush_present) {
  const auto pick_dim = [&p, &s] { return p.ConsumeIntegralInRange<std::size_t>(0, s.shape.size() - 1); };
  switch (p.ConsumeIntegralInRange<int>(0, 8)) {
    case 0: {  // rank 0..5; new dims have size 1 or an edge size
      s.shape.resize(p.ConsumeIntegralInRange<std::size_t>(0, 5), 1);
      for (int64_t& n : s.shape)
        if (p.ConsumeBool()) n = pick_count(p, n);
      s.strides = compact_strides(s.shape);
      break;
    }
    case 1:  // one size (strides kept, or recomputed compact)
      if (!s.shape.empty()) {
        const std::size_t d = pick_dim();
        s.shape[d] = pick_count(p, s.shape[d]);
        if (!s.null_strides && p.ConsumeBool()) s.strides = compact_strides(s.shape);
      }
      break;
    case 2:  // one stride
      if (!s.shape.empty()) {
        make_explicit(s);
        const std::size_t d = pick_dim();
        s.strides[d] = pick_stride(p, s.strides[d]);
      }
      break;
    case 3:  // an odd stride on a size-1 dim (making one size 1 if there is none)
      if (!s.shape.empty()) {
        make_explicit(s);
        std::size_t d = pick_dim();
        for (std::size_t i = 0; i < s.shape.size(); ++i)
          if (s.shape[i] == 1) d = i;
        s.shape[d] = 1;
        s.strides[d] = pick_stride(p, s.strides[d]);
      }
      break;
    case 4:  // null <-> explicit strides
      if (s.null_strides) make_explicit(s);
      else s.null_strides = true;
      break;
    case 5: s.dtype = pick_any_dtype(p); break;
    case 6: s.device = pick_any_device(p); break;
    case 7:  // swap two dims' strides (a transposed view) or two sizes
      if (s.shape.size() >= 2) {
        make_explicit(s);
        const std::size_t x = pick_dim(), y = pick_dim();
        if (p.ConsumeBool()) std::swap(s.strides[x], s.strides[y]);
        else std::swap(s.shape[x], s.shape[y]);
      }
      break;
    default: force_flush_present = !force_flush_present; break;
  }
}

HostTensor to_host(const Spec& s) {
  return HostTensor::metadata(s.dtype, s.shape, s.null_strides ? std::vector<int64_t>{} : s.strides, s.device,
                              s.null_strides);
}

}  // namespace

DecodedCall decode_call(Fdp& p) {
  bool ff_present = true;
  std::array<Spec, kArgCount> s = plausible_call(p, ff_present);
  DecodedCall call;
  call.meta.scale = pick_double(p, 0.5);
  call.meta.use_qk_l2norm_in_kernel = p.ConsumeBool();
  switch (p.ConsumeIntegralInRange<int>(0, 2)) {
    case 0: break;  // absent: softplus gate
    case 1: call.meta.lower_bound = -5.0; break;
    default: call.meta.lower_bound = pick_double(p, -1.0); break;
  }
  constexpr std::array<Backend, 3> backends = {Backend::Any, Backend::Cpu, Backend::Cuda};
  call.backend = pick(p, backends);
  const int mutations = p.ConsumeIntegralInRange<int>(0, 8);
  for (int i = 0; i < mutations; ++i) mutate(p, s[p.ConsumeIntegralInRange<int>(0, kArgCount - 1)], ff_present);

  StepTensors& m = call.meta;
  HostTensor StepTensors::*const fields[] = {&StepTensors::mixed_qkv,   &StepTensors::a,       &StepTensors::b,
                                              &StepTensors::A_log,       &StepTensors::dt_bias, &StepTensors::initial_state,
                                              &StepTensors::d_cache,     &StepTensors::k_cache, &StepTensors::g_cache,
                                              &StepTensors::out,         &StepTensors::ssm_state_indices,
                                              &StepTensors::write_pos};
  for (int i = 0; i < kFf; ++i) m.*fields[i] = to_host(s[i]);
  if (ff_present) m.force_flush = to_host(s[kFf]);
  return call;
}

}  // namespace kda::fuzz
