#include "engine/driver/case_budget.hpp"

#include <fmt/format.h>

#include <cmath>

#include "contract/scalar_type.hpp"

namespace kda::engine {
namespace {

// The envelope layout's gap: 257 elements between slots and between ring pages
// (cases/case_config.hpp, CaseConfig::envelope).
constexpr double kGap = 257;

}  // namespace

double case_work(const CaseConfig& c) { return rollout_work(c) + kStepWork * static_cast<double>(c.steps); }

double case_tensor_bytes(const CaseConfig& c) {
  const double B = c.B, H = c.H, HV = c.HV, K = c.K, V = c.V, L = c.L, S = c.slots;
  const double gap = c.envelope ? kGap : 0;
  const double act = static_cast<double>(size_of(c.act_dtype)), ring = static_cast<double>(size_of(c.ring_dtype));
  const double state = static_cast<double>(size_of(c.state_dtype)), out = static_cast<double>(size_of(c.out_dtype));
  const double idx = static_cast<double>(size_of(c.index_dtype));
  double bytes = act * (B * (2 * H * K + HV * V + gap) + B * HV * K + B * (HV + gap) + HV + HV * K);
  bytes += state * S * (HV * V * K + gap);
  bytes += ring * (S * HV * L * V + L * gap) + ring * S * (H * L * K + gap) + 4 * (S * HV * L * K + L * gap);
  bytes += out * B * HV * V + idx * B + 4 * 2 * B;  // out, ssm_state_indices, write_pos and force_flush
  return bytes;
}

double case_memory_bytes(const CaseConfig& c) {
  const double state_and_rings = static_cast<double>(c.slots) * c.HV * (c.V * c.K + c.L * (c.V + 2.0 * c.K));
  return 2 * case_tensor_bytes(c) + 4 * 8 * state_and_rings;
}

std::string over_budget(const CaseConfig& c, const CaseBudget& budget) {
  const double memory_budget_mib = budget.memory_mib, work_budget = budget.work;
  const double mib = case_memory_bytes(c) / (1024.0 * 1024.0);
  if (mib > memory_budget_mib)
    return fmt::format("the case needs about {:.0f} MiB, over the memory budget of {:.0f} MiB; raise --memory-budget "
                       "(MiB) to run it on a machine that has the memory",
                       mib, memory_budget_mib);
  const double work = case_work(c);
  if (work > work_budget)
    return fmt::format("the case is {:.3g} units of reference work ({} steps), over the work budget of {:.3g} (a few "
                       "minutes); lower steps, or raise --work-budget to run it",
                       work, c.steps, work_budget);
  return "";
}

}  // namespace kda::engine
