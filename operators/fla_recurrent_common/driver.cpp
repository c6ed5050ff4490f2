#include "operators/fla_recurrent_common/driver.hpp"

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <set>

#include "contract/tensor_view.hpp"
#include "kernels/row_status.hpp"
#include "operators/fla_recurrent_common/case_tensors.hpp"
#include "operators/fla_recurrent_common/contract.hpp"

namespace kda::engine {
namespace {

int64_t tokens_indexed(const StepArgs& a, const Dims& d) { return a.ssm_state_indices->ndim == 2 ? d.T : 1; }

// The byte range of slot s of the pool (contiguous inside a slot: the contract).
std::pair<int64_t, int64_t> slot_bytes(const DLTensor& pool, const Dims& d, int64_t s) {
  const int64_t esize = pool.dtype.bits / 8;
  return {s * stride(pool, 0) * esize, (s * stride(pool, 0) + d.HV * d.K * d.V) * esize};
}

std::string footprint(const WrittenBytes& before, const StepArgs& a, const Dims& d, const std::vector<RowPlan>& plans) {
  const DLTensor& pool = *a.initial_state;
  std::set<int64_t> allowed;
  for (std::size_t row = 0; row < plans.size(); ++row)
    if (plans[row].accepted())
      for (int64_t s : fla_written_slots(a, d, static_cast<int64_t>(row))) allowed.insert(s);
  const std::vector<unsigned char>& was = before.of("initial_state");
  const auto* now = static_cast<const unsigned char*>(pool.data) + pool.byte_offset;
  if (static_cast<int64_t>(was.size()) < slot_bytes(pool, d, d.slots - 1).second) return "initial_state: storage size changed";
  int64_t at = 0;  // bytes before `at` are checked
  const auto check_until = [&](int64_t end, const std::string& what) -> std::string {
    if (end <= at) return "";
    if (std::memcmp(was.data() + at, now + at, static_cast<std::size_t>(end - at)) == 0) return at = end, "";
    int64_t b = at;
    while (was[static_cast<std::size_t>(b)] == now[b]) ++b;
    return fmt::format("initial_state byte {} changed: {}", b, what);
  };
  for (int64_t s = 0; s < d.slots; ++s) {
    const auto [first, last] = slot_bytes(pool, d, s);
    if (std::string v = check_until(first, fmt::format("it lies in the gap before slot {}, which no step may write", s)); !v.empty())
      return v;
    at = std::max(at, first);
    if (allowed.count(s)) {
      at = last;
      continue;
    }
    if (std::memcmp(was.data() + first, now + first, static_cast<std::size_t>(last - first)) != 0) {
      int64_t b = first;
      while (was[static_cast<std::size_t>(b)] == now[b]) ++b;
      const int64_t hv = (b - first) / (pool.dtype.bits / 8) / (d.K * d.V);
      return fmt::format("initial_state[{}, {}] (slot {}, value head {}) changed: no live row of this step writes slot {}", s,
                         hv, s, hv, s);
    }
    at = last;
  }
  if (std::string v = check_until(static_cast<int64_t>(was.size()), "it lies past the last slot"); !v.empty()) return v;
  if (before.of("out").size() != static_cast<std::size_t>(numel(*a.out) * (a.out->dtype.bits / 8)))
    return "out: storage size changed";
  return input_change(before, a);
}

}  // namespace

std::vector<int64_t> fla_written_slots(const StepArgs& a, const Dims& d, int64_t row) {
  std::vector<int64_t> slots;
  for (int64_t t = 0; t < d.T; ++t) slots.push_back(fla_write_slot(a, row, tokens_indexed(a, d) == 1 ? 0 : t));
  return slots;
}

std::vector<RowPlan> plan_fla_rows(const StepArgs& a, const Dims& d) {
  std::vector<RowPlan> plans(d.B);
  std::map<int64_t, int> uses;
  const int64_t n_idx = tokens_indexed(a, d);
  for (int64_t row = 0; row < d.B; ++row) {
    RowPlan& p = plans[row];
    p.flush = true;  // the state is written every step
    if (fla_index(*a.ssm_state_indices, row, 0) < 0) {
      p.status = cuda::kRowPadding;
      continue;
    }
    for (int64_t t = 0; t < n_idx; ++t) {
      const int64_t s = fla_index(*a.ssm_state_indices, row, t);
      if (s < 0 || s >= d.slots) p.status |= cuda::kRowSlotOutOfRange;
      ++uses[s];
    }
    const int64_t n = a.num_accepted_tokens ? index_value(*a.num_accepted_tokens, row) : 1;
    if (n < 1 || n > d.T) p.status |= cuda::kRowCursorOutOfRange;
    if (p.status == 0) p.slot = fla_start_slot(a, row);
  }
  for (int64_t row = 0; row < d.B; ++row) {
    if (plans[row].status & cuda::kRowPadding) continue;
    for (int64_t t = 0; t < n_idx; ++t)
      if (uses[fla_index(*a.ssm_state_indices, row, t)] > 1) plans[row].status |= cuda::kRowDuplicateSlot;
  }
  return plans;
}

const CaseDriver& fla_recurrent_driver() {
  static const CaseDriver driver{
      .materialize = &materialize_fla_case,
      .fill_step = &fill_fla_step,
      .dims = [](const StepTensors&, Dims validated) { return validated; },  // the call names them all
      .plan_rows = &plan_fla_rows,
      .footprint_violation = &footprint,
      // The indices stay from call to call; each call's num_accepted_tokens is its input.
      .after_step = [](StepTensors&, std::vector<RowPlan>&, bool) {},
      .reference_oracle = &fla_reference_oracle,
      .truth_oracle = &fla_truth_oracle,
  };
  return driver;
}

}  // namespace kda::engine
