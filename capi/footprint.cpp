#include "capi/footprint.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>

#include "contract/tensor_view.hpp"

namespace kda::capi {
namespace {

std::size_t item_bytes(const DLTensor& t) { return (t.dtype.bits * t.dtype.lanes + 7) / 8; }
const std::byte* base(const DLTensor& t) { return static_cast<const std::byte*>(t.data) + t.byte_offset; }

// Element offsets of t[fixed..., every index of the remaining dims] (fixed: leading indices).
void box_offsets(const DLTensor& t, const std::vector<int64_t>& fixed, std::vector<int64_t>& out) {
  const auto shape = shape_of(t);
  const auto strides = strides_of(t);
  int64_t start = 0;
  for (std::size_t d = 0; d < fixed.size(); ++d) start += fixed[d] * strides[d];
  std::vector<int64_t> index(shape.size() - fixed.size(), 0);
  for (std::size_t d = fixed.size(); d < shape.size(); ++d)
    if (shape[d] == 0) return;
  while (true) {
    int64_t off = start;
    for (std::size_t i = 0; i < index.size(); ++i) off += index[i] * strides[fixed.size() + i];
    out.push_back(off);
    std::size_t i = index.size();
    while (i > 0 && ++index[i - 1] == shape[fixed.size() + i - 1]) index[--i] = 0;
    if (i == 0) return;
  }
}

std::vector<int64_t> index_of(const DLTensor& t, int64_t offset) {
  // The multi-index of an element offset (strides of valid written tensors are non-overlapping).
  const auto shape = shape_of(t);
  const auto strides = strides_of(t);
  std::vector<std::size_t> order(shape.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](auto x, auto y) { return strides[x] > strides[y]; });
  std::vector<int64_t> index(shape.size(), 0);
  for (auto d : order)
    if (strides[d] > 0) {
      index[d] = std::min(offset / strides[d], shape[d] - 1);
      offset -= index[d] * strides[d];
    }
  if (offset != 0) return {};  // a gap between elements
  return index;
}

}  // namespace

FootprintSnapshot::FootprintSnapshot(const StepArgs& a) {
  const std::pair<const char*, const DLTensor*> all[] = {
      {"mixed_qkv", a.mixed_qkv}, {"a", a.a}, {"b", a.b}, {"A_log", a.A_log}, {"dt_bias", a.dt_bias},
      {"initial_state", a.initial_state}, {"d_cache", a.d_cache}, {"k_cache", a.k_cache}, {"g_cache", a.g_cache},
      {"out", a.out}, {"ssm_state_indices", a.ssm_state_indices}, {"write_pos", a.write_pos},
      {"force_flush", a.force_flush}};
  for (const auto& [name, t] : all) {
    if (t == nullptr || numel(*t) == 0) continue;
    const OffsetRange r = offset_range(*t);
    Tensor s{name, t, r.lo, {}, {}};
    s.bytes.assign(base(*t) + r.lo * static_cast<int64_t>(item_bytes(*t)),
                   base(*t) + (r.hi + 1) * static_cast<int64_t>(item_bytes(*t)));
    tensors_.push_back(std::move(s));
  }
  const int64_t B = size(*a.mixed_qkv, 0), L = size(*a.d_cache, 2);
  auto allow = [&](const DLTensor* t, const std::vector<int64_t>& fixed) {
    for (Tensor& s : tensors_)
      if (s.t == t) box_offsets(*t, fixed, s.allowed);
  };
  allow(a.out, {});
  for (int64_t row = 0; row < B; ++row) {
    const int64_t slot = index_value(*a.ssm_state_indices, row);
    if (slot < 0) continue;
    const int64_t cursor = index_value(*a.write_pos, row);
    const bool flush = cursor == L - 1 || (a.force_flush && index_value(*a.force_flush, row) != 0);
    if (flush) {
      allow(a.initial_state, {slot});
    } else {
      for (const DLTensor* ring : {a.d_cache, a.k_cache, a.g_cache})
        for (int64_t h = 0; h < size(*ring, 1); ++h) allow(ring, {slot, h, cursor});
    }
  }
  for (Tensor& s : tensors_) {
    for (auto& o : s.allowed) o -= s.lo;
    std::sort(s.allowed.begin(), s.allowed.end());
  }
}

std::optional<std::string> FootprintSnapshot::stray_write() const {
  for (const Tensor& s : tensors_) {
    const std::size_t item = item_bytes(*s.t);
    const std::byte* now = base(*s.t) + s.lo * static_cast<int64_t>(item);
    for (std::size_t e = 0; e < s.bytes.size() / item; ++e) {
      if (std::memcmp(now + e * item, s.bytes.data() + e * item, item) == 0) continue;
      if (std::binary_search(s.allowed.begin(), s.allowed.end(), static_cast<int64_t>(e))) continue;
      const auto index = index_of(*s.t, s.lo + static_cast<int64_t>(e));
      return index.empty() ? fmt::format("{}: a gap between its elements (element offset {})", s.name, s.lo + e)
                           : fmt::format("{} element [{}]", s.name, fmt::join(index, ", "));
    }
  }
  return std::nullopt;
}

}  // namespace kda::capi
