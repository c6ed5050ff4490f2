// may_self_overlap(): the X-STRIDES question for written tensors. Interleaved strides that
// fail the fast sorted-stride proof are decided exactly (a contract_fuzzer finding: a
// disjoint d_cache was refused); beyond the enumeration limit, only provable layouts pass.
#include <gtest/gtest.h>

#include "contract/host_tensor.hpp"
#include "contract/tensor_view.hpp"

namespace kda::test {
namespace {

bool overlaps(std::vector<int64_t> shape, std::vector<int64_t> strides) {
  const auto t = HostTensor::metadata(to_dl(ScalarType::Float32), std::move(shape), std::move(strides), {kDLCPU, 0});
  return may_self_overlap(t.dl());
}

TEST(ContractOverlap, CompactPaddedAndEnvelopeLayoutsAreDisjoint) {
  EXPECT_FALSE(overlaps({5, 4, 128, 128}, {4 * 128 * 128, 128 * 128, 128, 1}));
  EXPECT_FALSE(overlaps({5, 4, 128, 128}, {4 * 128 * 128 + 257, 128 * 128, 128, 1}));
  EXPECT_FALSE(overlaps({5, 4, 8, 128}, {128, 5 * 128, 4 * 5 * 128, 1}));  // page-major ring
}

TEST(ContractOverlap, InterleavedButDisjointStridesAreAccepted) {
  // The fuzzer's d_cache: offsets e + 8 j + 12 hv + 24 s are all distinct.
  EXPECT_FALSE(overlaps({2, 2, 3, 4}, {24, 12, 8, 1}));
  EXPECT_FALSE(overlaps({3, 2}, {2, 3}));  // offsets 0 3 2 5 4 7
}

TEST(ContractOverlap, SharedElementsAreRefused) {
  EXPECT_TRUE(overlaps({4, 3}, {0, 1}));                // broadcast over dim 0
  EXPECT_TRUE(overlaps({3, 3}, {2, 1}));                // (0,2) and (1,0) both at 2
  EXPECT_TRUE(overlaps({2, 2, 3, 4}, {24, 12, 3, 1}));  // (j=1, e=0) and (j=0, e=3) both at 3
}

TEST(ContractOverlap, SizeOneDimsNeverOverlapWhateverTheirStride) {
  EXPECT_FALSE(overlaps({1, 4}, {0, 1}));
  EXPECT_FALSE(overlaps({4, 1}, {1, 7}));
}

TEST(ContractOverlap, BeyondTheEnumerationLimitOnlyProvableLayoutsPass) {
  const int64_t n = kExactOverlapLimit;
  EXPECT_FALSE(overlaps({n, 2}, {3, 1}));  // padded rows: provable by the strides
  // Offsets 2i + 3j (j < 2) are disjoint (even vs odd), but no sorted-stride proof exists and
  // 2n elements are past the enumeration limit: refused, as the catalog entry says.
  EXPECT_TRUE(overlaps({n, 2}, {2, 3}));
  EXPECT_FALSE(overlaps({n / 4, 2}, {2, 3}));  // the same pattern, small enough to enumerate
}

}  // namespace
}  // namespace kda::test
