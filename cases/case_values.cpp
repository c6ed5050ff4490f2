#include "cases/case_values.hpp"

#include <cmath>

namespace kda::values {
namespace {
bool adversarial(const CaseConfig& c) { return c.values == ValueMode::Adversarial; }
}  // namespace

GateLogits::GateLogits(const CaseConfig& c, uint64_t token)
    : adversarial_(adversarial(c)),
      normal_(c.seed, rng::Stream::GateLogits, token),
      pick_(c.seed, rng::Stream::Adversarial, token) {}

double GateLogits::operator()(uint64_t element, double dt_bias) const {
  if (!adversarial_) return normal_.normal(element);
  // A third each: at the softplus threshold (a + dt_bias = 20 +- 0.5), far out, ordinary.
  const double u = pick_.uniform(element);
  if (u < 1.0 / 3) return 20.0 - dt_bias + 0.5 * normal_.normal(element);
  if (u < 2.0 / 3) return 8.0 * normal_.normal(element);
  return normal_.normal(element);
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

HeadGate::HeadGate(const CaseConfig& c, double A_log) : A_(std::exp(A_log)), lower_bound_(c.lower_bound) {}

double HeadGate::operator()(double x) const {
  if (lower_bound_) return *lower_bound_ / (1.0 + std::exp(-A_ * x));
  const double softplus = x <= 20.0 ? std::log1p(std::exp(x)) : x;
  return -A_ * softplus;
}

}  // namespace kda::values
