#include "cases/case_values.hpp"

#include <cmath>

namespace kda::values {
namespace {
bool adversarial(const CaseConfig& c) { return c.values == ValueMode::Adversarial; }
}  // namespace

double gate_logit(const CaseConfig& c, uint64_t token, uint64_t element, double dt_bias) {
  const rng::Counter r(c.seed, rng::Stream::GateLogits, token);
  if (!adversarial(c)) return r.normal(element);
  // A third each: at the softplus threshold (a + dt_bias = 20 +- 0.5), far out, ordinary.
  const rng::Counter pick(c.seed, rng::Stream::Adversarial, token);
  const double u = pick.uniform(element);
  if (u < 1.0 / 3) return 20.0 - dt_bias + 0.5 * r.normal(element);
  if (u < 2.0 / 3) return 8.0 * r.normal(element);
  return r.normal(element);
}

double beta_logit(const CaseConfig& c, uint64_t token, uint64_t element) {
  const rng::Counter r(c.seed, rng::Stream::BetaLogits, token);
  return (adversarial(c) ? 6.0 : 1.0) * r.normal(element);
}

double a_log(const CaseConfig& c, uint64_t hv) {
  const rng::Counter r(c.seed, rng::Stream::ALog);
  return adversarial(c) ? r.uniform(hv, -6.0, 2.5) : r.uniform(hv, -2.0, 0.5);
}

double dt_bias(const CaseConfig& c, uint64_t element) {
  const rng::Counter r(c.seed, rng::Stream::DtBias);
  return (adversarial(c) ? 3.0 : 0.5) * r.normal(element);
}

double query_scale(const CaseConfig& c) {
  const double base = 1.0 / std::sqrt(static_cast<double>(c.K));
  if (!adversarial(c)) return base;
  const rng::Counter r(c.seed, rng::Stream::Scale);
  return std::ldexp(base, static_cast<int>(r.below(0, 9)) - 4);
}

double head_magnitude(const CaseConfig& c, uint64_t token, uint64_t head_id) {
  if (!adversarial(c)) return 1.0;
  const rng::Counter r(c.seed, rng::Stream::HeadMagnitude, token);
  return std::ldexp(1.0, static_cast<int>(r.below(head_id, 9)) - 4);
}

double gate(const CaseConfig& c, double A_log, double x) {
  const double A = std::exp(A_log);
  if (c.lower_bound) return *c.lower_bound / (1.0 + std::exp(-A * x));
  const double softplus = x <= 20.0 ? std::log1p(std::exp(x)) : x;
  return -A * softplus;
}

}  // namespace kda::values
