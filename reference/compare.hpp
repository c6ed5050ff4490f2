// compare(): expected vs actual as blocks of consecutive logical elements (one block = one
// output head o[row, hv] of V values, or one state matrix S[slot, hv] of V*K values). The
// error of a block is the normwise relative error ||actual - expected||_2 / ||expected||_2;
// a block whose expected norm is 0 has error 0 if actual is exactly 0 too, else +inf. Any
// NaN (or inf) in actual or expected makes the block's error NaN/inf, which never passes.
//
// Optional floors (one per block) put a lower limit on the denominator:
// error = ||actual - expected|| / max(||expected||, floor). A quantity that cancels to far
// below its natural scale is judged against that scale, because rounding errors scale with
// the magnitude of the terms, not of their sum (an output o = S q is judged against
// ||S||_F ||q|| / sqrt(K), its RMS size for a random q: see tolerance.cpp), and against the
// smallest normal number of its dtype times sqrt(block size) (below it, storage rounds in
// absolute, not relative, steps: subnormals). tolerance.hpp gives both floors.
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "contract/host_tensor.hpp"

namespace kda::reference {

struct Comparison {
  double worst_error = 0;     // the worst block's error (NaN if any block is NaN)
  int64_t worst_block = -1;   // index of the worst block (-1: nothing compared)
  int64_t blocks = 0;         // how many blocks were compared
  int64_t failed = 0;         // how many of them failed
  double tolerance = 0;       // the worst block's tolerance
  double ratio() const { return worst_error / tolerance; }
  bool pass = true;           // every block's error <= tolerance (NaN fails)
  std::string where;          // caller's label of the worst block, e.g. "token 7 row 2 hv 3"

  // Keeps the worse of two comparisons, by error / tolerance (counts add up); used to fold
  // many checks that may have different tolerances.
  void merge(const Comparison& other);
  // Whether merge(other) takes other's worst block (and its `where`) as the worst.
  bool takes(const Comparison& other) const;
  // In torch.testing.assert_close's words, for blocks: "all 96 blocks within bounds; greatest
  // relative difference (normwise, by block): 3.1e-04 (up to 1.2e-03 allowed) at token 7 row 2
  // hv 3", or on a failure "Mismatched blocks: 5 / 96 (5.2%); greatest relative ...".
  std::string describe() const;
};

// expected.size() == actual.size(), a multiple of block_size.
Comparison compare(std::span<const double> expected, std::span<const double> actual, int64_t block_size,
                   double tolerance, std::span<const double> floors = {});
// The same with `where` left empty, for a caller that labels the worst block itself.
Comparison compare_unlabeled(std::span<const double> expected, std::span<const double> actual, int64_t block_size,
                             double tolerance, std::span<const double> floors = {});
// The same on two tensors of equal shape (any dtypes, any strides), by logical index.
Comparison compare(const HostTensor& expected, const HostTensor& actual, int64_t block_size, double tolerance,
                   std::span<const double> floors = {});

}  // namespace kda::reference
