// What one step must do per row, derived on the host from the index tensors alone
// (independently of the kernel) by the operator's case driver (CaseDriver::plan_rows): the
// expected kda::cuda::RowStatus flags, and for accepted rows the slot, cursor and whether the
// row flushes. Used to check the kernel's status tensor, to build the reference's view of the
// step, and to bound the step's footprint.
#pragma once
#include <array>
#include <cstdint>
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

// "" when every byte that changed between `before` and the tensors of `after` lies inside an
// element the step may write for the plans' accepted rows (out: every element; a checkpoint
// (full or history): the row's [slot, hv]; an append (or history step): d/g records
// [slot, hv, record] and the k record [slot, h, record]); else a description of the first
// byte changed outside.
std::string footprint_violation(const WrittenBytes& before, const StepArgs& after, const Dims& dims,
                                const std::vector<RowPlan>& plans);

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
