// Rounding profiles (semantics.md "Kernel profiles"): what a kernel may round differently
// from the harness's default, and so which bound its results are judged by. Each profile's
// bound is as tight as that profile needs, never looser.
#pragma once
#include <optional>
#include <string_view>

#include "cases/case_config.hpp"
#include "reference/tolerance.hpp"

namespace kda::engine {

enum class Profile {
  Helion,  // the default rounding points: float32 products, keys stored at k_cache's dtype
  Triton   // TF32 products where out is float32; stored keys rounded through out's dtype first
};
std::string_view name_of(Profile p);
std::optional<Profile> parse_profile(std::string_view s);

// The a-priori bounds of a backend with profile p against the CPU reference (which has the
// Helion points) on one step of a golden file: outputs and checkpoints (the two sides'
// rollout_bounds added, TF32 products for Triton where out is float32), and ring records (the
// k record widened by one unit of out's dtype for Triton where out is narrower than k_cache).
// The step-by-step suite takes its key and gate record bounds from here and the rest from
// the two sides' one-step budgets (the ReplaySSM family's reference oracle).
struct ProfileBounds {
  reference::RolloutBounds step;
  double output_at(double gate_mass) const { return step.output_at(gate_mass); }
  double state_at(double gate_mass) const { return step.state_at(gate_mass); }
  reference::RecordBounds records(double output_bound) const;
  CaseConfig config;
  Profile profile = Profile::Helion;
  bool directed = false;
};
// directed: the backend rounds every rounding point away from the exact value (the profile
// emulations' worst case, reference/profile_emulation.hpp): its part of the bound has that
// rounding's unit roundoffs and worst-case sums (reference::rounding_rates).
ProfileBounds bounds_vs_reference(const CaseConfig& config, Profile p, bool directed = false);

// The bounds against the float64 plain recurrence (reference::rollout_bounds, TF32 products
// for Triton where out is float32).
reference::RolloutBounds bounds_vs_truth(const CaseConfig& config, Profile p, bool directed = false);

}  // namespace kda::engine
