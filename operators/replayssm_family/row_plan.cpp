#include "operators/replayssm_family/row_plan.hpp"

#include <map>

#include "contract/step_fields.hpp"
#include "contract/tensor_view.hpp"
#include "kernels/row_status.hpp"

namespace kda::engine {

std::vector<RowPlan> plan_rows(const StepArgs& a, const Dims& dims) {
  std::vector<RowPlan> plans(dims.B);
  std::map<int64_t, int> uses;
  for (int64_t r = 0; r < dims.B; ++r) {
    RowPlan& p = plans[r];
    p.slot = index_value(*a.ssm_state_indices, r);
    if (p.slot < 0) {
      p.status = cuda::kRowPadding;
      continue;
    }
    ++uses[p.slot];
    p.cursor = index_value(*a.write_pos, r);
    const bool circular = a.circular_replay && a.cache_base != nullptr;
    p.ring = RingCursor{circular, dims.L, p.cursor, circular ? index_value(*a.cache_base, r) : 0};
    if (p.slot >= dims.slots) p.status |= cuda::kRowSlotOutOfRange;
    if (p.cursor < 0 || p.cursor >= dims.L) p.status |= cuda::kRowCursorOutOfRange;
    if (p.ring.base < 0 || p.ring.base >= dims.L) p.status |= cuda::kRowCursorOutOfRange;
    const RingStep step = p.ring.step(a.force_flush != nullptr && index_value(*a.force_flush, r) != 0);
    p.flush = step == RingStep::Full;
    p.history = step == RingStep::History;
    p.record = p.ring.phys(p.cursor);
  }
  for (RowPlan& p : plans)
    if (p.slot >= 0 && uses[p.slot] > 1) p.status |= cuda::kRowDuplicateSlot;
  return plans;
}

}  // namespace kda::engine
