#include "bench/bench_workspace.hpp"

#include <cmath>
#include <stdexcept>

#include "bench/device_fill.hpp"
#include "contract/tensor_view.hpp"

namespace kda::bench {
namespace {

constexpr std::size_t kAlign = 256;

int64_t count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

}  // namespace

Workspace::Workspace(const BenchCase& c, int64_t sets) : c_(c), sets_(sets) { layout(); }

Workspace::Workspace(const BenchCase& c, int64_t sets, std::byte* base, std::size_t capacity)
    : c_(c), sets_(sets), base_(base), capacity_(capacity) {
  if (base == nullptr) throw std::invalid_argument("Workspace: null arena");
  layout();
}

DLTensor* Workspace::carve(ScalarType t, std::vector<int64_t> shape) {
  View& v = views_.emplace_back();
  v.shape = std::move(shape);
  const std::size_t bytes = static_cast<std::size_t>(count(v.shape)) * size_of(t);
  const std::size_t at = used_;
  used_ += (bytes + kAlign - 1) / kAlign * kAlign;
  if (base_ != nullptr && used_ > capacity_) throw std::length_error("Workspace: arena too small");
  v.dl.data = base_ == nullptr ? nullptr : base_ + at;
  v.dl.device = {kDLCUDA, 0};
  v.dl.ndim = static_cast<int32_t>(v.shape.size());
  v.dl.dtype = to_dl(t);
  v.dl.shape = v.shape.data();
  v.dl.strides = nullptr;  // compact row-major
  v.dl.byte_offset = 0;
  return &v.dl;
}

void Workspace::layout() {
  const int64_t B = c_.B, H = c_.H, HV = c_.HV, K = c_.K, V = c_.V, L = c_.L, S = sets_ * B;
  state_ = carve(c_.state, {S, HV, V, K});
  d_ = carve(c_.ring, {S, HV, L, V});
  k_ = carve(c_.ring, {S, H, L, K});
  // GDN's gates are one per value head: g_cache [S, HV, L], dt_bias [HV], a [B, HV].
  g_ = c_.op.gate_per_head ? carve(ScalarType::Float32, {S, HV, L}) : carve(ScalarType::Float32, {S, HV, L, K});
  A_log_ = carve(c_.act, {HV});
  dt_bias_ = carve(c_.act, {c_.op.gate_per_head ? HV : HV * K});
  for (int64_t s = 0; s < sets_; ++s) {
    qkv_.push_back(carve(c_.act, {B, 2 * H * K + HV * V}));
    a_.push_back(carve(c_.act, {B, c_.op.gate_per_head ? HV : HV * K}));
    b_.push_back(carve(c_.act, {B, HV}));
    out_.push_back(carve(c_.out, {B, 1, HV, V}));
    idx_.push_back(carve(ScalarType::Int32, {B}));
  }
  for (int64_t cur = 0; cur < L; ++cur) write_pos_.push_back(carve(ScalarType::Int32, {B}));
  ff0_ = carve(ScalarType::Int32, {B});
  ff1_ = carve(ScalarType::Int32, {B});
  if (base_ != nullptr) {
    int device = 0;
    cudaGetDevice(&device);
    for (View& v : views_) v.dl.device.device_id = device;
  }
}

void Workspace::fill(cudaStream_t stream) {
  if (base_ == nullptr) throw std::logic_error("Workspace::fill on a plan");
  auto uniform = [&](DLTensor* t, uint64_t seed, float lo, float hi) {
    fill_uniform(t->data, numel(*t), *scalar_type_of(t->dtype), seed, lo, hi, stream);
  };
  // Ranges keep every quantity finite and the gates plausible: g in [-0.5, -0.01] per
  // record (64 records decay by at most e^-32), A = exp(A_log) in [0.14, 1].
  uniform(state_, 1, -1.0f, 1.0f);
  uniform(d_, 2, -1.0f, 1.0f);
  uniform(k_, 3, -0.2f, 0.2f);
  uniform(g_, 4, -0.5f, -0.01f);
  uniform(A_log_, 5, -2.0f, 0.0f);
  uniform(dt_bias_, 6, -1.0f, 1.0f);
  for (int64_t s = 0; s < sets_; ++s) {
    uniform(qkv_[s], 100 + 5 * s, -1.0f, 1.0f);
    uniform(a_[s], 101 + 5 * s, -1.0f, 1.0f);
    uniform(b_[s], 102 + 5 * s, -2.0f, 2.0f);
    uniform(out_[s], 103 + 5 * s, -1.0f, 1.0f);
    fill_int32_ramp(idx_[s]->data, c_.B, static_cast<int32_t>(s * c_.B), 1, stream);
  }
  for (int64_t cur = 0; cur < c_.L; ++cur) fill_int32_ramp(write_pos_[cur]->data, c_.B, static_cast<int32_t>(cur), 0, stream);
  fill_int32_ramp(ff0_->data, c_.B, 0, 0, stream);
  fill_int32_ramp(ff1_->data, c_.B, 1, 0, stream);
}

StepArgs Workspace::args(int64_t set, int64_t cursor, bool forced) {
  StepArgs s;
  s.mixed_qkv = qkv_.at(set);
  s.a = a_.at(set);
  s.b = b_.at(set);
  s.A_log = A_log_;
  s.dt_bias = dt_bias_;
  s.scale = 1.0 / std::sqrt(static_cast<double>(c_.K));
  s.initial_state = state_;
  s.d_cache = d_;
  s.k_cache = k_;
  s.g_cache = g_;
  s.out = out_.at(set);
  s.ssm_state_indices = idx_.at(set);
  s.write_pos = write_pos_.at(cursor);
  s.force_flush = forced ? ff1_ : ff0_;
  s.use_qk_l2norm_in_kernel = true;  // Kimi-Linear and Qwen3-Next normalize q and k in the kernel
  return s;
}

int64_t sets_for(const BenchCase& c, double min_bytes, int64_t max_sets) {
  const double smallest = uniform_step_bytes(c.model(), c.B, 0, c.L == 1).total();
  const int64_t n = static_cast<int64_t>(std::ceil(min_bytes / smallest));
  return n < 1 ? 1 : n > max_sets ? max_sets : n;
}

}  // namespace kda::bench
