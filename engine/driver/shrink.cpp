#include "engine/driver/shrink.hpp"

#include <chrono>
#include <vector>

#include "engine/driver/defaults.hpp"
#include "engine/reports/failure_cause.hpp"
#include "engine/driver/run_case.hpp"

namespace kda::engine {
namespace {

bool is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

// The candidates one step smaller than c, the biggest cuts first.
std::vector<CaseConfig> smaller(const CaseConfig& c) {
  std::vector<CaseConfig> out;
  const auto add = [&](auto&& edit) {
    CaseConfig n = c;
    edit(n);
    if (!(n == c)) out.push_back(n);
  };
  if (c.steps > 1) add([](CaseConfig& n) { n.steps = 1; }), add([](CaseConfig& n) { n.steps = n.steps / 2; }),
      add([](CaseConfig& n) { n.steps -= 1; });
  if (c.B > 1) {
    add([](CaseConfig& n) { n.slots -= n.B - 1, n.B = 1; });
    add([](CaseConfig& n) { n.slots -= n.B - n.B / 2, n.B /= 2; });
    add([](CaseConfig& n) { n.B -= 1, n.slots -= 1; });
  }
  if (c.slots > c.B) add([](CaseConfig& n) { n.slots = n.B; });
  if (c.HV > c.H) add([](CaseConfig& n) { n.HV = n.H; }), add([](CaseConfig& n) { n.HV /= 2; });
  if (c.H > 1) add([](CaseConfig& n) { n.HV /= n.H, n.H = 1; }), add([](CaseConfig& n) { n.H /= 2, n.HV /= 2; });
  if (c.K > 1) add([](CaseConfig& n) { n.K /= 2; });
  if (c.V > 1) add([](CaseConfig& n) { n.V /= 2; });
  if (c.L > 1) add([](CaseConfig& n) { n.L = (n.L + 1) / 2; }), add([](CaseConfig& n) { n.L -= 1; });
  if (c.envelope) add([](CaseConfig& n) { n.envelope = false; });
  return out;
}

}  // namespace

bool no_larger(const CaseConfig& c, const CaseConfig& of) {
  return c.B <= of.B && c.H <= of.H && c.HV <= of.HV && c.K <= of.K && c.V <= of.V && c.L <= of.L &&
         c.slots <= of.slots && c.steps <= of.steps;
}

std::optional<Shrunk> shrink_case(const CaseConfig& failing, const OperatorDescription& op,
                                  const std::function<bool(const CaseConfig&)>& fails, int64_t max_runs) {
  Shrunk best{failing, 0};
  bool moved = false;
  for (bool progress = true; progress && best.runs < max_runs;) {
    progress = false;
    for (const CaseConfig& candidate : smaller(best.config)) {
      const CaseConfig fitted = op.fit_case(candidate);
      if (!is_valid_config(fitted) || !is_pow2(fitted.K) || !is_pow2(fitted.V) || !no_larger(fitted, best.config) ||
          fitted == best.config)
        continue;
      if (best.runs >= max_runs) break;
      ++best.runs;
      if (!fails(fitted)) continue;
      best.config = fitted;
      moved = progress = true;
      break;  // from the new, smaller case, the biggest cuts again
    }
  }
  if (!moved) return std::nullopt;
  return best;
}

bool shrinkable(const CaseReport& f) {
  return f.replay_line.empty() && f.outside_envelope.empty() && (f.against == "reference" || f.against == "truth");
}

std::optional<Shrunk> shrink_failure(const CaseReport& f, Backend& backend) {
  if (!shrinkable(f)) return std::nullopt;
  const std::string cause = failure_cause(f);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(defaults::kShrinkSeconds);
  const auto fails = [&](const CaseConfig& c) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    try {
      const CaseReport again = f.against == "truth" ? run_vs_truth(c, backend) : run_vs_reference(c, backend);
      return !again.pass() && failure_cause(again) == cause;
    } catch (const std::exception&) {
      return false;
    }
  };
  return shrink_case(f.config, backend.op(), fails, defaults::kShrinkRuns);
}

}  // namespace kda::engine
