// Internal to reference/: moving blocks of strided tensor elements to and from Eigen
// matrices, with the dtype switch OUTSIDE the element loops, and rounding through a dtype.
// A block is `rows x cols` elements; element (r, c) lies at element offset
// `offset + r * row_stride + c * col_stride` of the tensor's data (byte_offset included).
#pragma once
#include <dlpack/dlpack.h>

#include <cstdint>

#include "contract/scalar_type.hpp"
#include "reference/matrix.hpp"

namespace kda::reference::io {

struct Block {
  int64_t offset = 0, rows = 1, row_stride = 0, cols = 0, col_stride = 1;
};

// Reads the block into dst (resized to rows x cols).
template <class Scalar>
void gather(const DLTensor& t, const Block& b, Matrix<Scalar>& dst);
// Writes src (rows x cols) into the block, each value rounded (through float32, then
// round-to-nearest-even) to the tensor's dtype.
template <class Scalar>
void scatter(DLTensor& t, const Block& b, const Matrix<Scalar>& src);
// Writes zeros into the block.
void zero(DLTensor& t, const Block& b);

// Rounds every element through float32 and the dtype and back (what a store then a load
// does). Float32 rounds float values not at all.
template <class Scalar>
void round_through(ScalarType type, Eigen::Ref<Matrix<Scalar>> m);
template <class Scalar>
Scalar round_through(ScalarType type, Scalar x);

// The whole index tensor as int64 values.
std::vector<int64_t> read_indices(const DLTensor& t);

// Element stride of dim d (compact strides when the tensor has none).
int64_t stride_of(const DLTensor& t, int d);

}  // namespace kda::reference::io
