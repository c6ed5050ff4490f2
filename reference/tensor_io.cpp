#include "reference/tensor_io.hpp"

#include <Eigen/Core>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "contract/tensor_view.hpp"

namespace kda::reference::io {
namespace {

template <class Storage>
Storage* base_of(const DLTensor& t) {
  return reinterpret_cast<Storage*>(static_cast<char*>(t.data) + t.byte_offset);
}

// Every float16 value as float, as Eigen converts it: one lookup per element instead of
// Eigen's conversion without F16C (a dozen integer operations and branches).
const float* half_as_float() {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    for (uint32_t bits = 0; bits < t.size(); ++bits)
      t[bits] = static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(static_cast<uint16_t>(bits)));
    return t;
  }();
  return table.data();
}

template <class Storage>
float as_float(Storage x, const float* half_table) {
  if constexpr (std::is_same_v<Storage, Eigen::half>) return half_table[Eigen::numext::bit_cast<uint16_t>(x)];
  else return static_cast<float>(x);
}

template <class Storage, class Scalar>
void gather_as(const DLTensor& t, const Block& b, Matrix<Scalar>& dst) {
  const Storage* p = base_of<Storage>(t) + b.offset;
  const float* half_table = std::is_same_v<Storage, Eigen::half> ? half_as_float() : nullptr;
  if (b.col_stride == 1) {  // rows of consecutive elements (most blocks): a loop the compiler vectorizes
    for (int64_t r = 0; r < b.rows; ++r) {
      const Storage* from = p + r * b.row_stride;
      Scalar* to = dst.row(r).data();
      for (int64_t c = 0; c < b.cols; ++c) to[c] = static_cast<Scalar>(as_float(from[c], half_table));
    }
    return;
  }
  for (int64_t r = 0; r < b.rows; ++r)
    for (int64_t c = 0; c < b.cols; ++c)
      dst(r, c) = static_cast<Scalar>(as_float(p[r * b.row_stride + c * b.col_stride], half_table));
}

template <class Storage, class Scalar>
void scatter_as(DLTensor& t, const Block& b, const Matrix<Scalar>& src) {
  Storage* p = base_of<Storage>(t) + b.offset;
  if (b.col_stride == 1) {
    for (int64_t r = 0; r < b.rows; ++r) {
      Storage* to = p + r * b.row_stride;
      const Scalar* from = src.row(r).data();
      for (int64_t c = 0; c < b.cols; ++c) to[c] = Storage(static_cast<float>(from[c]));
    }
    return;
  }
  for (int64_t r = 0; r < b.rows; ++r)
    for (int64_t c = 0; c < b.cols; ++c)
      p[r * b.row_stride + c * b.col_stride] = Storage(static_cast<float>(src(r, c)));
}

template <class Storage, class Scalar>
void round_as(Eigen::Ref<Matrix<Scalar>> m) {
  m = m.unaryExpr([](Scalar x) { return static_cast<Scalar>(static_cast<float>(Storage(static_cast<float>(x)))); });
}

ScalarType float_type(const DLTensor& t) { return *scalar_type_of(t.dtype); }

}  // namespace

int64_t stride_of(const DLTensor& t, int d) { return kda::stride(t, d); }

template <class Scalar>
void gather(const DLTensor& t, const Block& b, Matrix<Scalar>& dst) {
  dst.resize(b.rows, b.cols);
  switch (float_type(t)) {
    case ScalarType::Float32: return gather_as<float>(t, b, dst);
    case ScalarType::BFloat16: return gather_as<Eigen::bfloat16>(t, b, dst);
    case ScalarType::Float16: return gather_as<Eigen::half>(t, b, dst);
    default: throw std::logic_error("io::gather: not a float tensor");
  }
}

template <class Scalar>
void scatter(DLTensor& t, const Block& b, const Matrix<Scalar>& src) {
  switch (float_type(t)) {
    case ScalarType::Float32: return scatter_as<float>(t, b, src);
    case ScalarType::BFloat16: return scatter_as<Eigen::bfloat16>(t, b, src);
    case ScalarType::Float16: return scatter_as<Eigen::half>(t, b, src);
    default: throw std::logic_error("io::scatter: not a float tensor");
  }
}

void zero(DLTensor& t, const Block& b) {
  const std::size_t size = size_of(float_type(t));
  char* p = static_cast<char*>(t.data) + t.byte_offset;
  for (int64_t r = 0; r < b.rows; ++r)
    for (int64_t c = 0; c < b.cols; ++c)
      std::memset(p + (b.offset + r * b.row_stride + c * b.col_stride) * static_cast<int64_t>(size), 0, size);
}

template <class Scalar>
void round_through(ScalarType type, Eigen::Ref<Matrix<Scalar>> m) {
  switch (type) {
    case ScalarType::Float32: return round_as<float, Scalar>(m);
    case ScalarType::BFloat16: return round_as<Eigen::bfloat16, Scalar>(m);
    case ScalarType::Float16: return round_as<Eigen::half, Scalar>(m);
    default: throw std::logic_error("io::round_through: not a float type");
  }
}

template <class Scalar>
Scalar round_through(ScalarType type, Scalar x) {
  switch (type) {
    case ScalarType::Float32: return static_cast<Scalar>(static_cast<float>(x));
    case ScalarType::BFloat16: return static_cast<Scalar>(static_cast<float>(Eigen::bfloat16(static_cast<float>(x))));
    case ScalarType::Float16: return static_cast<Scalar>(static_cast<float>(Eigen::half(static_cast<float>(x))));
    default: throw std::logic_error("io::round_through: not a float type");
  }
}

std::vector<int64_t> read_indices(const DLTensor& t) {
  std::vector<int64_t> v(kda::size(t, 0));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = kda::index_value(t, static_cast<int64_t>(i));
  return v;
}

template void gather<float>(const DLTensor&, const Block&, Matrix<float>&);
template void gather<double>(const DLTensor&, const Block&, Matrix<double>&);
template void scatter<float>(DLTensor&, const Block&, const Matrix<float>&);
template void scatter<double>(DLTensor&, const Block&, const Matrix<double>&);
template void round_through<float>(ScalarType, Eigen::Ref<Matrix<float>>);
template void round_through<double>(ScalarType, Eigen::Ref<Matrix<double>>);
template float round_through<float>(ScalarType, float);
template double round_through<double>(ScalarType, double);

}  // namespace kda::reference::io
