// The Eigen matrix and vector types of reference/ (row-major matrices of the arithmetic
// scalar: double for the ground truth, float for what kernels compute).
#pragma once
#include <Eigen/Core>

namespace kda::reference {

template <class Scalar>
using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class Scalar>
using Vector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;

}  // namespace kda::reference
