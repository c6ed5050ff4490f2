#include "tools/case_budget.hpp"

#include <fmt/format.h>

#include <cmath>

#include "contract/scalar_type.hpp"

namespace kda::cli {
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

std::string over_budget(const CaseConfig& c, double memory_budget_mib, double work_budget) {
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

}  // namespace kda::cli

namespace kda::cli {

std::string invalid_config_field(const CaseConfig& c) {
  const auto pow2 = [](int64_t x) { return x > 0 && (x & (x - 1)) == 0; };
  const auto floating = [](ScalarType t) { return is_floating(t); };
  if (c.B < 1) return fmt::format("B={} must be at least 1", c.B);
  if (c.H < 1) return fmt::format("H={} must be at least 1", c.H);
  if (c.HV < c.H || c.HV % c.H != 0) return fmt::format("HV={} is not a multiple of H={} (grouped heads)", c.HV, c.H);
  if (!pow2(c.K)) return fmt::format("K={} is not a power of two", c.K);
  if (!pow2(c.V)) return fmt::format("V={} is not a power of two", c.V);
  if (c.L < 1 || c.L > (int64_t{1} << 30)) return fmt::format("L={} is outside 1..2^30", c.L);
  if (c.slots < c.B) return fmt::format("slots={} is fewer than B={} (every row needs its own slot)", c.slots, c.B);
  if (!floating(c.act_dtype)) return fmt::format("act={} is not a floating dtype", name_of(c.act_dtype));
  if (!floating(c.state_dtype)) return fmt::format("state={} is not a floating dtype", name_of(c.state_dtype));
  if (!floating(c.ring_dtype)) return fmt::format("ring={} is not a floating dtype", name_of(c.ring_dtype));
  if (!floating(c.out_dtype)) return fmt::format("out={} is not a floating dtype", name_of(c.out_dtype));
  if (c.index_dtype != ScalarType::Int32 && c.index_dtype != ScalarType::Int64)
    return fmt::format("idx={} is not i32 or i64", name_of(c.index_dtype));
  if (c.lower_bound && !std::isfinite(*c.lower_bound)) return fmt::format("lb={} is not finite", *c.lower_bound);
  if (c.lower_bound && *c.lower_bound > 0)
    return fmt::format("lb={} is above 0: the gate lb * sigmoid(A x) would grow the state, not decay it", *c.lower_bound);
  if (c.steps < 1) return fmt::format("steps={} must be at least 1", c.steps);
  if (!(c.pad_fraction >= 0 && c.pad_fraction <= 1)) return fmt::format("pad={} is outside 0..1", c.pad_fraction);
  if (!(c.flush_prob >= 0 && c.flush_prob <= 1)) return fmt::format("flush={} is outside 0..1", c.flush_prob);
  if (!is_valid_config(c)) return "the config is not a valid call";  // a rule added to is_valid_config only
  return "";
}

}  // namespace kda::cli
