#include "contract/torch_view.hpp"

namespace kda {

std::vector<i128> wide_strides(const DLTensor& t) {
  std::vector<i128> s(t.ndim);
  for (int64_t d = 0; d < t.ndim; ++d)
    s[d] = t.strides ? static_cast<i128>(t.strides[d]) : compact_stride_sat(t.shape + d + 1, t.ndim - d - 1);
  return s;
}

std::optional<std::vector<i128>> view_strides(const DLTensor& t, const std::vector<i128>& new_shape) {
  const int64_t n_old = t.ndim, n_new = static_cast<int64_t>(new_shape.size());
  const std::vector<i128> old_strides = wide_strides(t);
  std::vector<i128> out(n_new, 1);
  if (n_old == 0) return out;  // a scalar views as all-ones strides

  // Empty tensors: the same shape keeps its strides, any other gets compact strides that
  // treat size-0 dims as 1.
  if (product_sat(t.shape, n_old) == 0) {
    bool same = n_old == n_new;
    for (int64_t d = 0; same && d < n_old; ++d) same = new_shape[d] == t.shape[d];
    if (same) return old_strides;
    for (int64_t d = n_new - 1; d >= 0; --d)
      out[d] = d == n_new - 1 ? 1 : mul_sat(std::max<i128>(new_shape[d + 1], 1), out[d + 1]);
    return out;
  }

  // Walk the old dims from the last, in chunks of dims that are mutually contiguous; each
  // chunk must be covered exactly by a run of new dims, whose strides are laid out from the
  // chunk's base stride. Size-1 new dims take the stride at their position.
  int64_t view_d = n_new - 1;
  i128 chunk_base = old_strides[n_old - 1];
  i128 tensor_numel = 1, view_numel = 1;
  for (int64_t d = n_old - 1; d >= 0; --d) {
    tensor_numel = mul_sat(tensor_numel, t.shape[d]);
    const bool chunk_ends =
        d == 0 || (t.shape[d - 1] != 1 && old_strides[d - 1] != mul_sat_signed(tensor_numel, chunk_base));
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
      out[view_d] = mul_sat_signed(view_numel, chunk_base);
      view_numel = mul_sat(view_numel, new_shape[view_d]);
      --view_d;
    }
    if (view_numel != tensor_numel) return std::nullopt;
    if (d > 0) {
      chunk_base = old_strides[d - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

}  // namespace kda
