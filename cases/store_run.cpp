#include "cases/store_run.hpp"

#include <Eigen/Core>
#include <cstring>
#include <vector>

namespace kda {

void store_run(HostTensor& t, int64_t first, std::span<const double> values) {
  const std::vector<int64_t>& shape = t.shape();
  const std::vector<int64_t>& strides = t.strides();
  const auto n = static_cast<int64_t>(values.size());
  int64_t d = static_cast<int64_t>(shape.size()) - 1, inner = 1;
  while (d >= 0 && strides[d] == inner && shape[d] > 0) inner *= shape[d--];
  if (first % inner + n > inner) {
    for (int64_t e = 0; e < n; ++e) t.set_linear(first + e, values[e]);
    return;
  }
  int64_t offset = first % inner;
  for (int64_t i = first / inner; d >= 0; --d) {
    offset += (i % shape[d]) * strides[d];
    i /= shape[d];
  }
  const ScalarType type = t.type();
  std::byte* p = t.storage().data() + offset * size_of(type);
  const auto store = [&]<class T>(auto convert) {
    for (int64_t e = 0; e < n; ++e) {
      const T v = convert(values[e]);
      std::memcpy(p + e * sizeof(T), &v, sizeof(T));
    }
  };
  switch (type) {
    case ScalarType::Float32: store.template operator()<float>([](double v) { return static_cast<float>(v); }); return;
    case ScalarType::BFloat16:
      store.template operator()<Eigen::bfloat16>([](double v) { return Eigen::bfloat16(static_cast<float>(v)); });
      return;
    case ScalarType::Float16:
      store.template operator()<Eigen::half>([](double v) { return Eigen::half(static_cast<float>(v)); });
      return;
    default:
      for (int64_t e = 0; e < n; ++e) store_element(p + e * size_of(type), type, values[e]);
  }
}

}  // namespace kda
