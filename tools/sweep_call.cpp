#include "tools/sweep_call.hpp"

#include <fmt/format.h>

#include "cases/rng.hpp"

namespace kda::cli {
namespace {

constexpr auto kSweepStream = static_cast<rng::Stream>(0xC0A7);

DLDataType float_dtype(uint64_t pick) {
  switch (pick % 3) {
    case 0: return {kDLFloat, 32, 1};
    case 1: return {kDLBfloat, 16, 1};
    default: return {kDLFloat, 16, 1};
  }
}

}  // namespace

void TensorMeta::reshape(std::vector<int64_t> s) {
  shape = std::move(s);
  if (!strides.empty()) strides = compact_strides(shape);
}

std::vector<int64_t>& TensorMeta::explicit_strides() {
  if (strides.empty()) strides = compact_strides(shape);
  return strides;
}

std::vector<TensorMeta*> MetaCall::all() {
  std::vector<TensorMeta*> v = {&mixed_qkv, &a, &b, &A_log, &dt_bias, &initial_state, &d_cache, &k_cache,
                                &g_cache, &out, &ssm_state_indices, &write_pos};
  if (force_flush) v.push_back(&*force_flush);
  return v;
}

MetaCall draw_valid_call(uint64_t seed, uint64_t index) {
  const rng::Counter r(seed, kSweepStream, index);
  uint64_t e = 0;
  auto below = [&](uint64_t n) { return r.below(e++, n); };
  auto coin = [&] { return r.bernoulli(e++, 0.5); };
  MetaCall c;
  SweepDims& d = c.dims;
  // Sizes reach past anything a test could allocate: the sweep never touches data.
  const int64_t batches[] = {1, 2, 3, 7, 64, 1024};
  d.B = batches[below(6)];
  d.H = 1 + static_cast<int64_t>(below(8));
  d.HV = d.H * (int64_t{1} << below(4));
  d.K = int64_t{1} << below(9);
  d.V = int64_t{1} << below(9);
  d.L = 1 + static_cast<int64_t>(below(64));
  d.slots = d.B + static_cast<int64_t>(below(9));
  const DLDataType act = float_dtype(below(3)), state = float_dtype(below(3)), ring = float_dtype(below(3)),
                   outd = float_dtype(below(3));
  const DLDataType index_type = coin() ? DLDataType{kDLInt, 32, 1} : DLDataType{kDLInt, 64, 1};
  const bool a3d = coin(), dt2d = coin(), ff = coin(), explicit_compact = coin();
  const int64_t pad = coin() ? static_cast<int64_t>(1 + below(300)) : 0;  // slot stride padding of state and rings
  const bool cuda = coin();
  const DLDevice device = cuda ? DLDevice{kDLCUDA, 0} : DLDevice{kDLCPU, 0};
  const int64_t qkv = 2 * d.H * d.K + d.HV * d.V;
  auto t = [&](DLDataType dt, std::vector<int64_t> shape) {
    TensorMeta m{dt, shape, explicit_compact ? compact_strides(shape) : std::vector<int64_t>{}, device};
    return m;
  };
  auto ring_meta = [&](DLDataType dt, int64_t heads, int64_t width) {
    TensorMeta m = t(dt, {d.slots, heads, d.L, width});
    if (pad > 0) m.explicit_strides()[0] += pad;
    return m;
  };
  c.mixed_qkv = t(act, {d.B, qkv});
  c.a = a3d ? t(act, {d.B, d.HV, d.K}) : t(act, {d.B, d.HV * d.K});
  c.b = t(act, {d.B, d.HV});
  c.A_log = t(act, {d.HV});
  c.dt_bias = dt2d ? t(act, {d.HV, d.K}) : t(act, {d.HV * d.K});
  c.initial_state = t(state, {d.slots, d.HV, d.V, d.K});
  if (pad > 0) c.initial_state.explicit_strides()[0] += pad;
  c.d_cache = ring_meta(ring, d.HV, d.V);
  c.k_cache = ring_meta(ring, d.H, d.K);
  c.g_cache = ring_meta({kDLFloat, 32, 1}, d.HV, d.K);
  c.out = t(outd, {d.B, 1, d.HV, d.V});
  c.ssm_state_indices = t(index_type, {d.B});
  c.write_pos = t({kDLInt, 32, 1}, {d.B});
  if (ff) c.force_flush = t({kDLInt, 32, 1}, {d.B});
  c.backend = coin() ? Backend::Any : cuda ? Backend::Cuda : Backend::Cpu;
  c.description = fmt::format("sweep seed={} index={}: B={} H={} HV={} K={} V={} L={} slots={} a3d={} dt2d={} ff={} "
                              "pad={} strides={} device={}",
                              seed, index, d.B, d.H, d.HV, d.K, d.V, d.L, d.slots, int(a3d), int(dt2d), int(ff), pad,
                              explicit_compact ? "explicit" : "null", cuda ? "cuda:0" : "cpu");
  return c;
}

BuiltCall::BuiltCall(MetaCall& call) {
  const auto metas = call.all();
  tensors.reserve(metas.size());
  for (TensorMeta* m : metas)
    tensors.push_back(HostTensor::metadata(m->dtype, m->shape, m->strides, m->device, m->strides.empty()));
  auto dl = [this](std::size_t i) { return &tensors[i].dl(); };
  args.mixed_qkv = dl(0);
  args.a = dl(1);
  args.b = dl(2);
  args.A_log = dl(3);
  args.dt_bias = dl(4);
  args.initial_state = dl(5);
  args.d_cache = dl(6);
  args.k_cache = dl(7);
  args.g_cache = dl(8);
  args.out = dl(9);
  args.ssm_state_indices = dl(10);
  args.write_pos = dl(11);
  args.force_flush = call.force_flush ? dl(12) : nullptr;
  args.scale = 1.0 / 8;
}

}  // namespace kda::cli
