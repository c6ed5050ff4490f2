#include "engine/description/case_breaking.hpp"

#include <algorithm>
#include <cstring>

#include "contract/tensor_view.hpp"
#include "engine/description/replayssm_call.hpp"

namespace kda::engine {
namespace {

std::vector<int64_t> strides_of(const TensorSpec& t) { return t.null_strides ? compact_strides(t.shape) : t.strides; }

bool same_layout(const TensorSpec& x, const TensorSpec& y) {
  return x.dtype.code == y.dtype.code && x.dtype.bits == y.dtype.bits && x.dtype.lanes == y.dtype.lanes &&
         x.shape == y.shape && strides_of(x) == strides_of(y) && x.device.device_type == y.device.device_type &&
         x.device.device_id == y.device.device_id;
}

std::optional<HostTensor> stored(const TensorSpec& t) {
  const std::optional<ScalarType> type = scalar_type_of(t.dtype);
  if (!type || t.device.device_type != kDLCPU) return std::nullopt;
  const std::vector<int64_t> strides = strides_of(t);
  const bool compact = strides == compact_strides(t.shape);
  // A zero stride stores nothing twice in a tensor without elements (the hand-made strides
  // [s, 0, 0, 1] of an empty GDN state).
  const bool empty = std::find(t.shape.begin(), t.shape.end(), 0) != t.shape.end();
  for (std::size_t d = 0; d < strides.size() && !compact; ++d)
    if (strides[d] < 0 || (strides[d] == 0 && t.shape[d] > 1 && !empty)) return std::nullopt;
  HostTensor h = compact ? HostTensor(*type, t.shape) : HostTensor(*type, t.shape, strides);
  std::memset(h.storage().data(), 0xFF, h.storage().size());
  return h;
}

}  // namespace

std::optional<Expected> break_case(CaseTensors& t, const Mutation& m, std::span<const ErrorInput> inputs) {
  const CaseConfig& c = t.config;
  const CallSpec valid = spec_of(t);
  MutationTarget target{valid, Dims{c.B, c.H, c.HV, c.K, c.V, c.L, c.slots}, c.B};
  const MutationResult r = apply_mutations(inputs, target, {m});
  if (!r.expected) return std::nullopt;
  HostTensor* tensors[] = {&t.mixed_qkv, &t.a,       &t.b,       &t.A_log, &t.dt_bias,           &t.initial_state,
                           &t.d_cache,   &t.k_cache, &t.g_cache, &t.out,   &t.ssm_state_indices, &t.write_pos};
  std::vector<std::pair<HostTensor*, HostTensor>> rebuilt;
  for (std::size_t i = 0; i < std::size(tensors); ++i) {
    const TensorSpec& broken = target.spec.at(kReplaySSMTensors[i]);
    if (same_layout(broken, valid.at(kReplaySSMTensors[i]))) continue;
    std::optional<HostTensor> h = stored(broken);
    if (!h) return std::nullopt;
    rebuilt.emplace_back(tensors[i], std::move(*h));
  }
  const TensorSpec* ff = target.spec.find("force_flush");
  const TensorSpec* ff_valid = valid.find("force_flush");
  std::optional<HostTensor> flush = t.force_flush;
  if (!ff) {
    flush.reset();
  } else if (!ff_valid || !same_layout(*ff, *ff_valid)) {
    flush = stored(*ff);
    if (!flush) return std::nullopt;
  }
  for (auto& [slot, h] : rebuilt) *slot = std::move(h);
  t.force_flush = std::move(flush);
  return r.expected;
}

}  // namespace kda::engine
