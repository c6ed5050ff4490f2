#include "engine/description/profile.hpp"

namespace kda::engine {

std::string_view name_of(Profile p) { return p == Profile::Triton ? "triton" : "helion"; }

std::optional<Profile> parse_profile(std::string_view s) {
  if (s == "helion") return Profile::Helion;
  if (s == "triton") return Profile::Triton;
  return std::nullopt;
}

namespace {

bool tf32(Profile p) { return p == Profile::Triton; }

// a + b, term by term (the triangle inequality: the reference within a of the ground truth,
// the backend within b, so the two within a + b of each other).
reference::RolloutBounds sum(const reference::RolloutBounds& a, const reference::RolloutBounds& b) {
  reference::RolloutBounds s;
  s.output = a.output + b.output;
  s.state = a.state + b.state;
  s.output_per_gate_mass = a.output_per_gate_mass + b.output_per_gate_mass;
  s.state_per_gate_mass = a.state_per_gate_mass + b.state_per_gate_mass;
  return s;
}

}  // namespace

reference::RecordBounds ProfileBounds::records(double output_bound) const {
  reference::RecordBounds r = reference::record_bounds(output_bound, config.ring_dtype);
  // A directed store lands up to one ulp from its value, not half of one: one more unit of
  // the ring's dtype on each record the backend rounds.
  const double unit = directed ? 2.0 : 1.0;
  if (directed) {
    r.d += reference::unit_roundoff(config.ring_dtype);
    r.k += reference::unit_roundoff(config.ring_dtype);
  }
  // A key rounded through out's dtype before k_cache's: one more rounding of out's unit,
  // wherever that rounding is not already the ring's own (float32 out: exact; same dtypes:
  // the second rounding is exact).
  if (profile == Profile::Triton && config.out_dtype != ScalarType::Float32 && config.out_dtype != config.ring_dtype)
    r.k += unit * reference::unit_roundoff(config.out_dtype);
  return r;
}

ProfileBounds bounds_vs_reference(const CaseConfig& config, Profile p, bool directed) {
  ProfileBounds b;
  b.config = config;
  b.profile = p;
  b.directed = directed;
  b.step = sum(reference::rollout_bounds(config, false), reference::rollout_bounds(config, tf32(p), directed));
  b.step.rates.reset();
  return b;
}

reference::RolloutBounds bounds_vs_truth(const CaseConfig& config, Profile p, bool directed) {
  return reference::rollout_bounds(config, tf32(p), directed);
}

}  // namespace kda::engine
