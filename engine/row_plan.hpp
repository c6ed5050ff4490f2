// What one step must do per row, derived on the host from the index tensors alone
// (independently of the kernel): the expected kda::cuda::RowStatus flags, and for accepted
// rows the slot, cursor and whether the row flushes. Used to check the kernel's status
// tensor, to build the reference's view of the step, and to bound the step's footprint.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "contract/step_args.hpp"
#include "kernels/row_status.hpp"

namespace kda::engine {

struct RowPlan {
  int64_t slot = -1;
  int64_t cursor = 0;
  int32_t status = 0;  // kda::cuda::RowStatus flags
  bool flush = false;
  bool accepted() const { return status == 0; }  // non-padding and not rejected
  bool rejected() const { return (status & cuda::kRowRejectedMask) != 0; }
};

// From host-resident ssm_state_indices / write_pos / force_flush.
std::vector<RowPlan> plan_rows(const StepArgs& host, const Dims& dims);

// The bytes of each written tensor before a step, and of every input (a step may write no
// byte of an input).
struct WrittenBytes {
  std::vector<unsigned char> out, state, d, k, g;
  std::vector<std::vector<unsigned char>> inputs;  // in input_tensors() order
};
WrittenBytes snapshot_written(const StepArgs& host);
// The same into `into`, reusing its buffers (the driver's per-step snapshot).
void snapshot_written(const StepArgs& host, WrittenBytes& into);

// "" when every byte that changed between `before` and the tensors of `after` lies inside an
// element the step may write for the plans' accepted rows (out: every element; flush: the
// row's checkpoint [slot, hv]; append: d/g records [slot, hv, cursor] and the k record
// [slot, h, cursor]); else a description of the first byte changed outside.
std::string footprint_violation(const WrittenBytes& before, const StepArgs& after, const Dims& dims,
                                const std::vector<RowPlan>& plans);

// "" when no byte of any input changed since `before`; else the first input and element.
std::string input_change(const WrittenBytes& before, const StepArgs& after);

// "" when no byte of any tensor a step may write changed since `before` (a refused call);
// else the first tensor and byte that did.
std::string any_change(const WrittenBytes& before, const StepArgs& after);

}  // namespace kda::engine
