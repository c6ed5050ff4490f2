#include "operators/kda_triton_replayssm/kda_view.hpp"

#include <cmath>
#include <cstring>

#include "contract/tensor_view.hpp"

namespace kda::kda_triton {
namespace {

// A compact copy of tensor t (any strides) in `slot`, of `type` (converted through double).
HostTensor& copy_as(HostTensor& slot, const DLTensor& t, ScalarType type) {
  const std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  if (!slot.has_data() || slot.type() != type || slot.shape() != shape) slot = HostTensor(type, shape);
  const ScalarType from = *scalar_type_of(t.dtype);
  const auto* base = static_cast<const std::byte*>(t.data) + t.byte_offset;
  std::vector<int64_t> index(static_cast<std::size_t>(t.ndim), 0);
  for (int64_t i = 0, n = slot.numel(); i < n; ++i) {
    int64_t rest = i;
    for (int64_t k = t.ndim - 1; k >= 0; --k) index[k] = rest % shape[k], rest /= shape[k];
    slot.set_linear(i, load_element(base + element_offset(t, index.data()) * static_cast<int64_t>(size_of(from)), from));
  }
  return slot;
}

// The records [L, width] of ring block (slot, head) of compact tensor t as doubles, oldest
// first from physical record `base`, and back.
std::vector<double> window(const HostTensor& t, int64_t slot, int64_t head, int64_t base) {
  const int64_t heads = t.shape()[1], L = t.shape()[2], width = t.shape()[3];
  std::vector<double> r(static_cast<std::size_t>(L * width));
  for (int64_t j = 0; j < L; ++j)
    for (int64_t c = 0; c < width; ++c)
      r[j * width + c] = t.get_linear(((slot * heads + head) * L + (base + j) % L) * width + c);
  return r;
}
void put_window(HostTensor& t, int64_t slot, int64_t head, const std::vector<double>& r) {
  const int64_t heads = t.shape()[1], L = t.shape()[2], width = t.shape()[3];
  for (int64_t j = 0; j < L; ++j)
    for (int64_t c = 0; c < width; ++c) t.set_linear(((slot * heads + head) * L + j) * width + c, r[j * width + c]);
}

}  // namespace

StepArgs kda_view(const StepArgs& args, const Dims& d, std::vector<HostTensor>& storage) {
  const bool circular = args.circular_replay && args.cache_base != nullptr;
  if (!circular && !args.prefix_gate_cache && !args.predecayed_k_cache) return args;
  storage.resize(4);
  const ScalarType k_type = args.predecayed_k_cache ? ScalarType::Float32 : *scalar_type_of(args.k_cache->dtype);
  HostTensor& dc = copy_as(storage[0], *args.d_cache, *scalar_type_of(args.d_cache->dtype));
  HostTensor& kc = copy_as(storage[1], *args.k_cache, k_type);
  HostTensor& gc = copy_as(storage[2], *args.g_cache, ScalarType::Float32);
  const HostTensor k_ring = kc, g_ring = gc;  // as stored, before any slot is rewritten
  std::vector<bool> seen(static_cast<std::size_t>(d.slots), false);
  for (int64_t row = 0; row < d.B; ++row) {
    const int64_t slot = index_value(*args.ssm_state_indices, row);
    const int64_t base = circular ? index_value(*args.cache_base, row) : 0;
    const int64_t w = index_value(*args.write_pos, row);
    if (slot < 0 || slot >= d.slots || base < 0 || base >= d.L || w < 0 || w >= d.L) continue;
    if (seen[static_cast<std::size_t>(slot)]) continue;  // a second row on the slot: rejected, not read
    seen[static_cast<std::size_t>(slot)] = true;
    for (int64_t hv = 0; hv < d.HV; ++hv) {
      put_window(dc, slot, hv, window(dc, slot, hv, base));
      std::vector<double> g = window(g_ring, slot, hv, base);
      const std::vector<double> prefix = g;
      if (args.prefix_gate_cache)
        for (int64_t j = 1; j < w; ++j)
          for (int64_t c = 0; c < d.K; ++c) g[j * d.K + c] = prefix[j * d.K + c] - prefix[(j - 1) * d.K + c];
      put_window(gc, slot, hv, g);
      if (hv % (d.HV / d.H) != 0) continue;  // one key per query-head group
      const int64_t h = hv / (d.HV / d.H);
      std::vector<double> k = window(k_ring, slot, h, base);
      if (args.predecayed_k_cache)  // H == HV (P2): the key's prefix is its value head's
        for (int64_t j = 0; j < w; ++j)
          for (int64_t c = 0; c < d.K; ++c) k[j * d.K + c] *= std::exp(prefix[j * d.K + c]);
      put_window(kc, slot, h, k);
    }
  }
  StepArgs v = args;
  v.d_cache = &dc.dl();
  v.k_cache = &kc.dl();
  v.g_cache = &gc.dl();
  v.cache_base = nullptr;
  if (args.predecayed_k_cache) v.b = &copy_as(storage[3], *args.b, ScalarType::Float32).dl();
  return v;
}

}  // namespace kda::kda_triton
