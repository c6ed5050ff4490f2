// What every operator's contract is made of (validate_internal.hpp). validate() itself, the
// default operator's contract, is kda_replayssm's (operators/kda_replayssm/contract.cpp).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "contract/checked_int.hpp"
#include "contract/validate_internal.hpp"

namespace kda {

// Harness misuse, not a contract error: a missing required argument, or a DLTensor that no
// framework can produce (negative rank or size, no shape array).
void detail::check_well_formed(const DLTensor* t, const char* name, bool required) {
  if (!t) {
    if (required) throw std::invalid_argument(std::string("validate: required argument `") + name + "` is null");
    return;
  }
  if (t->ndim < 0 || (t->ndim > 0 && t->shape == nullptr))
    throw std::invalid_argument(std::string("validate: `") + name + "` has a negative ndim or no shape array");
  for (int32_t d = 0; d < t->ndim; ++d)
    if (t->shape[d] < 0) throw std::invalid_argument(std::string("validate: `") + name + "` has a negative size");
}

bool detail::has_negative_stride(const DLTensor& t) {
  if (!t.strides) return false;
  for (int64_t d = 0; d < t.ndim; ++d)
    if (t.strides[d] < 0) return true;
  return false;
}

// PyTorch refuses to create a tensor whose element count or storage bytes overflow int64
// ("numel: integer multiplication overflow", "Storage size calculation overflowed"). Strides
// are non-negative here (X-STRIDES ran first); storage spans 1 + sum (size - 1) * stride
// elements of ceil(bits * lanes / 8) bytes each.
bool detail::extent_fits(const DLTensor& t) {
  const i128 numel = product_sat(t.shape, t.ndim);
  if (numel > INT64_MAX) return false;
  if (numel == 0) return true;
  i128 span = numel;
  if (t.strides) {
    span = 1;
    for (int64_t d = 0; d < t.ndim; ++d) span += mul_sat(t.shape[d] - 1, t.strides[d]);
  }
  const i128 element_bytes = (static_cast<i128>(t.dtype.bits) * t.dtype.lanes + 7) / 8;
  return mul_sat(span, std::max<i128>(element_bytes, 1)) <= INT64_MAX;
}

}  // namespace kda
