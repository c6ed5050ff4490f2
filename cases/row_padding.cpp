#include "cases/row_padding.hpp"

#include <cstring>

#include "contract/tensor_view.hpp"

namespace kda {

std::vector<int64_t> row_padded_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s = compact_strides(shape);
  if (!s.empty()) s[0] += kRowPadding;
  return s;
}

HostTensor row_padded(const HostTensor& t) {
  HostTensor out(t.type(), t.shape(), row_padded_strides(t.shape()));
  std::memset(out.storage().data(), 0xFF, out.storage().size());
  for (int64_t i = 0; i < t.numel(); ++i) out.set_linear(i, t.get_linear(i));
  return out;
}

}  // namespace kda
