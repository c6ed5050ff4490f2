// exp_of(x): e^x element by element, as Eigen's vectorized exp computes it where that is right,
// and through std::exp where Eigen's result is below the smallest normal: there Eigen's float exp
// has clamped its argument (any x below about -88.7 gives 2.9e-39; e^-99.7 is the subnormal 5.2e-44).
// Gate totals that deep occur under adversarial gates, and the budget (tolerance.hpp) models
// float32 arithmetic with gradual underflow, as std::exp computes it. Everywhere else the bits
// are Eigen's, so the golden files the reference wrote stay reproduced bit for bit.
#pragma once
#include <Eigen/Core>
#include <cmath>
#include <limits>

namespace kda::reference {

template <class Derived>
Eigen::Array<typename Derived::Scalar, Derived::RowsAtCompileTime, Derived::ColsAtCompileTime> exp_of(
    const Eigen::ArrayBase<Derived>& x) {
  using Scalar = typename Derived::Scalar;
  // x.exp() on the expression itself: Eigen picks its packet or its scalar exp by the expression
  // (a broadcast takes the scalar one), and the golden files hold those bits.
  Eigen::Array<Scalar, Derived::RowsAtCompileTime, Derived::ColsAtCompileTime> e = x.exp();
  // Below the smallest normal only (where the clamp lands), the argument again, through std::exp.
  for (Eigen::Index i = 0; i < e.rows(); ++i)
    for (Eigen::Index j = 0; j < e.cols(); ++j)
      if (e(i, j) < std::numeric_limits<Scalar>::min()) e(i, j) = std::exp(x(i, j));
  return e;
}

}  // namespace kda::reference
