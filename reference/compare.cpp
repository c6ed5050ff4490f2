#include "reference/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace kda::reference {
namespace {

// Normwise relative error of one block; NaN propagates (and never passes), a zero reference
// demands an exactly zero result.
double block_error(const double* e, const double* a, int64_t n, double floor) {
  double diff = 0, ref = 0;
  for (int64_t i = 0; i < n; ++i) {
    diff += (a[i] - e[i]) * (a[i] - e[i]);
    ref += e[i] * e[i];
  }
  if (std::isnan(diff) || std::isnan(ref)) return std::numeric_limits<double>::quiet_NaN();
  const double denominator = std::max(std::sqrt(ref), floor);
  if (denominator == 0) {  // a zero reference: only an exactly zero result passes
    double act = 0;
    for (int64_t i = 0; i < n; ++i) act += a[i] * a[i];
    return act == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  }
  return std::sqrt(diff) / denominator;
}

bool worse(double candidate, double current) {
  return std::isnan(candidate) ? !std::isnan(current) : (!std::isnan(current) && candidate > current);
}

}  // namespace

bool Comparison::takes(const Comparison& other) const {
  return other.blocks > 0 && (blocks == 0 || worse(other.ratio(), ratio()));
}

void Comparison::merge(const Comparison& other) {
  if (takes(other)) {
    worst_error = other.worst_error;
    worst_block = other.worst_block;
    where = other.where;
    tolerance = other.tolerance;
  }
  blocks += other.blocks;
  failed += other.failed;
  pass = pass && other.pass;
}

std::string Comparison::describe() const {
  if (blocks == 0) return "nothing compared";
  const std::string greatest =
      fmt::format("greatest relative difference (normwise, by block): {:.3e} (up to {:.3e} allowed) at {}", worst_error,
                  tolerance, where.empty() ? "?" : where);
  if (pass) return fmt::format("all {} blocks within bounds; {}", blocks, greatest);
  return fmt::format("Mismatched blocks: {} / {} ({:.1f}%); {}", failed, blocks, 100.0 * static_cast<double>(failed) / blocks,
                     greatest);
}

Comparison compare(std::span<const double> expected, std::span<const double> actual, int64_t block_size,
                   double tolerance, std::span<const double> floors) {
  Comparison c = compare_unlabeled(expected, actual, block_size, tolerance, floors);
  c.where = fmt::format("block {}", c.worst_block);
  return c;
}

Comparison compare_unlabeled(std::span<const double> expected, std::span<const double> actual, int64_t block_size,
                             double tolerance, std::span<const double> floors) {
  if (expected.size() != actual.size() || block_size <= 0 || expected.size() % block_size != 0)
    throw std::invalid_argument("compare: sizes do not match or are not a multiple of the block size");
  if (!floors.empty() && static_cast<int64_t>(floors.size()) * block_size != static_cast<int64_t>(expected.size()))
    throw std::invalid_argument("compare: need one floor per block");
  Comparison c;
  c.tolerance = tolerance;
  const auto blocks = static_cast<int64_t>(expected.size()) / block_size;
  for (int64_t b = 0; b < blocks; ++b) {
    const double err = block_error(expected.data() + b * block_size, actual.data() + b * block_size, block_size,
                                   floors.empty() ? 0.0 : floors[b]);
    if (c.blocks == 0 || worse(err, c.worst_error)) {
      c.worst_error = err;
      c.worst_block = b;
    }
    ++c.blocks;
    if (!(err <= tolerance)) c.pass = false, ++c.failed;  // NaN fails
  }
  return c;
}

Comparison compare(const HostTensor& expected, const HostTensor& actual, int64_t block_size, double tolerance,
                   std::span<const double> floors) {
  if (expected.shape() != actual.shape()) throw std::invalid_argument("compare: tensor shapes differ");
  const int64_t n = expected.numel();
  std::vector<double> e(n), a(n);
  for (int64_t i = 0; i < n; ++i) {
    e[i] = expected.get_linear(i);
    a[i] = actual.get_linear(i);
  }
  return compare(e, a, block_size, tolerance, floors);
}

}  // namespace kda::reference
