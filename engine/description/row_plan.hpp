// What one step must do per row, derived on the host from the index tensors alone
// (independently of the kernel) by the operator's case driver (CaseDriver::plan_rows): the
// expected kda::cuda::RowStatus flags, and for accepted rows the slot, cursor and whether the
// row flushes. Used to check the kernel's status tensor, to build the reference's view of the
// step, and to bound the step's footprint.
#pragma once
#include <array>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "contract/step_args.hpp"
#include "contract/ring_protocol.hpp"
#include "contract/step_fields.hpp"
#include "kernels/row_status.hpp"

namespace kda::engine {

struct RowPlan {
  int64_t slot = -1;
  int64_t cursor = 0;  // write_pos: the records in the window
  int32_t status = 0;  // kda::cuda::RowStatus flags
  bool flush = false;    // a full checkpoint: the state after the token, no ring write
  bool history = false;  // a circular ring's history checkpoint: the state before the token, and an append
  int64_t record = 0;    // the physical ring slot an append (or history step) writes: phys(cursor)
  RingCursor ring;       // the row's ring position (mode, L, write_pos, cache_base)
  bool accepted() const { return status == 0; }  // non-padding and not rejected
  bool rejected() const { return (status & cuda::kRowRejectedMask) != 0; }
  bool writes_checkpoint() const { return flush || history; }
  bool appends() const { return !flush; }
  RingStep step() const { return flush ? RingStep::Full : history ? RingStep::History : RingStep::Append; }
};

// The storage bytes of every tensor of a call before a step (a step may write no byte of an
// input, and a refused step none at all): one entry per argument of contract/step_fields.hpp's
// table, so a tensor added there is covered; empty where the call leaves it out.
struct WrittenBytes {
  std::array<std::vector<unsigned char>, kStepTensors.size()> tensors;
  // The bytes of the named argument (std::invalid_argument for a name that is none).
  const std::vector<unsigned char>& of(std::string_view name) const;
};
WrittenBytes snapshot_written(const StepArgs& host);
// The same into `into`, reusing its buffers (the driver's per-step snapshot).
void snapshot_written(const StepArgs& host, WrittenBytes& into);

// The byte ranges of a tensor's storage that the step may write. A thread keeps its masks
// from step to step (no allocation, and nothing as large as the state pool to clear);
// seal() sorts and merges the ranges before a check reads them.
struct WriteMask {
  std::vector<std::pair<std::size_t, std::size_t>> ranges;  // [begin, end)

  void reset() { ranges.clear(); }
  void mark(std::size_t begin, std::size_t n) {
    if (n == 0) return;
    if (!ranges.empty() && ranges.back().second == begin) ranges.back().second = begin + n;  // a state's next row
    else ranges.emplace_back(begin, begin + n);
  }
  void seal() {
    std::sort(ranges.begin(), ranges.end());
    std::size_t kept = 0;
    for (const auto& r : ranges) {
      if (kept > 0 && r.first <= ranges[kept - 1].second) ranges[kept - 1].second = std::max(ranges[kept - 1].second, r.second);
      else ranges[kept++] = r;
    }
    ranges.resize(kept);
  }
};
// Marks the bytes of elements idx[0..2] x every index of the last dim (of a 4-D t; of a 3-D
// one, a ring of one scalar gate per record, the one element).
void allow_row(WriteMask& mask, const DLTensor& t, int64_t i0, int64_t i1, int64_t i2);
// The bytes of t's storage: from its first element to the end of the last one its strides reach.
std::size_t storage_size(const DLTensor& t);
// Why the step may not write the element at an index (its tensor's owner and the rows' plans
// say it: "row 2 flushes slot 1: no ring record may change").
using WhyNotWritable = std::function<std::string(const std::vector<int64_t>& index)>;
// "" when every byte of `name` that changed since `before` lies in `allowed` (sealed); else the
// first that does not, described: the element's index, whose it is, its values, `why_not`.
std::string first_write_outside(const char* name, const DLTensor& t, const std::vector<unsigned char>& before,
                                const WriteMask& allowed, const WhyNotWritable& why_not);

// "" when no byte of any input changed since `before`; else the first input and element.
std::string input_change(const WrittenBytes& before, const StepArgs& after);

// The one check that a refused call wrote nothing, which every refusal check calls (the
// driver, refusal_problem, golden error cases, the C library's contract suite, the fuzz
// oracle): "" when no byte of any tensor of the call (every argument of the table, written or
// read, 3-D gate rings included) changed since `before`; else the first that did, in the table's
// order: "k_cache[0, 1, 2, 3] (slot 0, query head 1, record 2) changed from 0.5 to 1: a refused
// call must write nothing" (a byte between elements of a strided layout, or a storage size
// that changed, is named as such).
std::string any_change(const WrittenBytes& before, const StepArgs& after);

}  // namespace kda::engine
