#include "engine/description/case_breaking.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "contract/tensor_view.hpp"
#include "engine/description/call_description.hpp"

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

std::optional<Expected> break_case(const OperatorDescription& op, CaseTensors& t, const Mutation& m) {
  const CaseConfig& c = t.config;
  const CallSpec valid = spec_of(t.args(), op.tensors);
  MutationTarget target{valid, Dims{c.B, c.H, c.HV, c.K, c.V, c.L, c.slots}, c.B};
  const MutationResult r = apply_mutations(op.error_inputs(), target, {m});
  if (!r.expected) return std::nullopt;
  // Every tensor the input changed or added, rebuilt; those it dropped, dropped. Nothing of the
  // case changes before all of them are known to be storable.
  std::vector<std::pair<std::string_view, HostTensor>> rebuilt;
  std::vector<std::string_view> dropped;
  for (std::string_view name : op.tensors) {
    const TensorSpec* broken = target.spec.find(name);
    const TensorSpec* before = valid.find(name);
    if (broken == nullptr) {
      if (before != nullptr) dropped.push_back(name);
      continue;
    }
    if (before != nullptr && same_layout(*broken, *before)) continue;
    std::optional<HostTensor> h = stored(*broken);
    if (!h) return std::nullopt;
    rebuilt.emplace_back(name, std::move(*h));
  }
  for (std::string_view name : dropped)
    if (!StepTensors::is_optional(name)) return std::nullopt;  // no case holds a required tensor's absence
  for (std::string_view name : dropped) t.drop(name);
  for (auto& [name, h] : rebuilt) t.at(name) = std::move(h);
  return r.expected;
}

}  // namespace kda::engine
