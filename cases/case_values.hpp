// The value ranges of the case generator, per ValueMode, in one place.
// WellConditioned follows SGLang's tests: modest logits, small A_log and dt_bias, keys that
// are L2-normalized in the kernel or drawn with norm ~1 and at most 1.25 (so beta ||k||^2 < 2
// and the delta rule never amplifies), |v| ~ 1, checkpoint entries ~0.3. Adversarial stresses the
// arithmetic while keeping every value finite in float16: logits far out, gates at the
// softplus threshold 20, beta saturated, value and query scales from 2^-4 to 2^4.
#pragma once
#include <cstdint>
#include <optional>

#include "cases/case_config.hpp"
#include "cases/rng.hpp"

namespace kda::values {

// Gate logits a[row, hv*K + c] of one token (dt_bias is added by the step).
class GateLogits {
 public:
  GateLogits(const CaseConfig& c, uint64_t token);
  double operator()(uint64_t element, double dt_bias) const;

 private:
  bool adversarial_;
  rng::Counter normal_, pick_;
};
// Beta logit b[row, hv].
double beta_logit(const CaseConfig& c, uint64_t token, uint64_t element);
// A_log[hv] and dt_bias[hv*K + c].
double a_log(const CaseConfig& c, uint64_t hv);
double dt_bias(const CaseConfig& c, uint64_t element);
// The query scale (K^-0.5, times a power of two when adversarial).
double query_scale(const CaseConfig& c);
// Magnitude multiplier of one head's q or v in one token (1 when well conditioned).
double head_magnitude(const CaseConfig& c, uint64_t token, uint64_t head_id);

// The log-decay gate of semantics.md for one K column of a head, in double (used to write
// plausible g ring records: what a past token with that logit would have stored).
class HeadGate {
 public:
  HeadGate(const CaseConfig& c, double A_log);
  double operator()(double x) const;

 private:
  double A_;
  std::optional<double> lower_bound_;
};

}  // namespace kda::values
