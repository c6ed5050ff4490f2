// THE KEY PROPERTY of gdn_replayssm (gdn-replayssm.md, "The key property", 2): a rollout of GDN
// steps (cursor protocol, forced flushes, padding rows, rings filled at the start, K and V not
// powers of two, L 1..16) gives the plain float64 GDN recurrence's outputs at every token and
// its state at every flush, within the project's tolerance model. The log shows the worst
// error / bound per dtype set.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cases/case_config.hpp"
#include "operators/gdn_replayssm/plain_recurrence.hpp"
#include "operators/gdn_replayssm/reference_step.hpp"
#include "property_tests/gdn_reference_test_calls.hpp"
#include "property_tests/reference_property.hpp"
#include "reference/compare.hpp"
#include "reference/plain_recurrence.hpp"
#include "reference/tolerance.hpp"
#include "reference/truth_tracker.hpp"

namespace kda::gdn::test {
namespace {

using reference::Matrix;
using reference::Rounding;

// The rollout, judged against the plain float64 GDN recurrence with the running error budget
// of reference/tolerance.hpp: GDN is KDA with the gate broadcast over K, so the KDA model's
// per-column terms apply as they are (the operand roundings bound each product term by the
// same u_p whichever factor carries the decay), with the Triton key rounding (keys through
// out's dtype where that differs from the ring's) as key_extra. Also: padding rows output
// exact zeros and nothing a step may not write changes (slots no row names stay NaN).
struct RolloutWorst {
  reference::Comparison out, state;
  int64_t rollouts = 0, tokens = 0, flushes = 0;
};

reference::RoundingRates gdn_rates(const GdnConfig& c) {
  CaseConfig k;
  k.K = c.K;
  k.V = c.V;
  k.L = c.L;
  k.state_dtype = c.state;
  k.ring_dtype = c.ring;
  k.out_dtype = c.out;
  reference::RoundingRates r = reference::rounding_rates(k);
  if (c.L > 1 && c.out != ScalarType::Float32 && c.out != c.ring) r.key_extra = r.out;
  return r;
}

Matrix<double> ring_block(const HostTensor& t, int64_t slot, int64_t head, int64_t n, int64_t width) {
  Matrix<double> m(n, width);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < width; ++i) m(j, i) = t.get({slot, head, j, i});
  return m;
}

std::string rollout(const GdnConfig& c, Rounding rounding, RolloutWorst& worst) {
  GdnCall t = make_call(c);
  const Dims& dm = t.dims;
  const auto slots = ints(t.ssm_state_indices);
  reference::PlainState<double> truth(dm);
  reference::ErrorBudget budget(gdn_rates(c), dm);
  {
    const StepArgs args = t.args();
    const auto cursors = ints(t.write_pos);
    for (int64_t row = 0; row < c.B; ++row) {
      if (slots[row] < 0) continue;
      const int64_t s = slots[row], n = cursors[row];
      for (int64_t hv = 0; hv < c.HV; ++hv) {
        truth.at(s, hv) = gdn_rebuilt_state(args, dm, s, hv, n);
        Matrix<double> G(n, c.K);
        for (int64_t j = 0; j < n; ++j) G.row(j).setConstant(t.g_cache.get({s, hv, j}));
        budget.start(s, hv, reference::read_checkpoint(t.initial_state.dl(), dm, s, hv),
                     ring_block(t.d_cache, s, hv, n, c.V), ring_block(t.k_cache, s, hv / (c.HV / c.H), n, c.K), G, n);
      }
    }
  }
  reference::Comparison outs, states;
  for (int64_t token = 0; token < c.steps; ++token) {
    if (token > 0) fill_token(t, token);
    const StepArgs args = t.args();
    std::vector<GdnHead> heads;
    std::vector<Matrix<double>> before;
    for (int64_t row = 0; row < c.B; ++row)
      for (int64_t hv = 0; hv < c.HV && slots[row] >= 0; ++hv) {
        heads.push_back(gdn_head(args, dm, row, hv));
        before.push_back(truth.at(slots[row], hv));
      }
    const Matrix<double> expected = plain_gdn_recurrence(truth, args, dm);
    gdn_replayssm_step(args, rounding);
    const Matrix<double> out = reference::read_out(t.out.dl(), dm);
    std::size_t head = 0;
    for (int64_t row = 0; row < c.B; ++row) {
      const int64_t s = slots[row];
      const bool flush = s >= 0 && flushes(t, row);
      worst.flushes += flush;
      for (int64_t hv = 0; hv < c.HV; ++hv) {
        const std::string where = fmt::format("token {} row {} slot {} hv {}", token, row, s, hv);
        const std::span<const double> e(expected.row(row).data() + hv * c.V, c.V), a(out.row(row).data() + hv * c.V, c.V);
        if (s < 0) {
          if (std::any_of(a.begin(), a.end(), [](double x) { return x != 0; }))
            return fmt::format("{}: a padding row's output is not zero", where);
          continue;
        }
        const GdnHead& h = heads[head];
        const Matrix<double>& S = truth.at(s, hv);
        const auto b = budget.token(s, hv, before[head], as_head_token(h), S, flush);
        ++head;
        const double floor = reference::output_floor(S.norm(), h.q_scaled.norm(), c.K, c.V, c.out);
        reference::Comparison oc = reference::compare(e, a, c.V, b.output, {&floor, 1});
        oc.where = where;
        outs.merge(oc);
        if (flush) {
          const Matrix<double> actual = reference::read_checkpoint(t.initial_state.dl(), dm, s, hv);
          const double sf = reference::state_floor(c.V, c.K, c.state);
          const std::span<const double> se(S.data(), static_cast<std::size_t>(S.size())),
              sa(actual.data(), static_cast<std::size_t>(actual.size()));
          reference::Comparison sc = reference::compare(se, sa, c.V * c.K, b.state, {&sf, 1});
          sc.where = where + " (flush)";
          states.merge(sc);
        }
      }
    }
    if (!outs.pass || !states.pass) return fmt::format("outputs: {}; states: {}", outs.describe(), states.describe());
    advance_cursors(t);
  }
  // The slots no row names were never written.
  std::set<int64_t> named(slots.begin(), slots.end());
  for (const HostTensor* x : {&t.initial_state, &t.d_cache, &t.k_cache, &t.g_cache}) {
    const int64_t per_slot = x->numel() / c.slots;
    for (int64_t i = 0; i < x->numel(); ++i)
      if (!named.count(i / per_slot) && !std::isnan(x->get_linear(i)))
        return fmt::format("element {} of slot {}, named by no row, was written", i, i / per_slot);
  }
  worst.out.merge(outs);
  worst.state.merge(states);
  ++worst.rollouts;
  worst.tokens += c.steps;
  return "";
}

std::string dtype_set(const GdnConfig& c) {
  return fmt::format("act={:<8} state={:<8} ring={:<8} out={:<8}", name_of(c.act), name_of(c.state), name_of(c.ring),
                     name_of(c.out));
}

TEST(GdnReplaySSMReference, RolloutEqualsThePlainGdnRecurrence) {
  std::map<std::string, RolloutWorst> kernel, off;
  kda::testing::check_property("GDN rollout == plain GDN recurrence", kda::testing::case_count("KDA_REFERENCE_CASES", 200), [&] {
    const GdnConfig c = *gen_config(/*powers_of_two=*/false, 24).as("config");
    const std::string k = rollout(c, Rounding::Kernel, kernel[dtype_set(c)]);
    if (!k.empty()) RC_FAIL("kernel rounding: " + k);
    const std::string o = rollout(c, Rounding::Off, off[dtype_set(c)]);
    if (!o.empty()) RC_FAIL("rounding off: " + o);
  });
  const auto print = [](const char* title, const std::map<std::string, RolloutWorst>& by_set) {
    std::printf("%s vs the plain float64 GDN recurrence, per dtype set (worst error / bound):\n", title);
    RolloutWorst all;
    for (const auto& [set, w] : by_set) {
      std::printf("  %s %3lld rollouts %4lld tokens %4lld flushes  out %.3e / %.3e = %.3f  state %.3e / %.3e = %.3f\n",
                  set.c_str(), static_cast<long long>(w.rollouts), static_cast<long long>(w.tokens),
                  static_cast<long long>(w.flushes), w.out.worst_error, w.out.tolerance, w.out.blocks ? w.out.ratio() : 0.0,
                  w.state.worst_error, w.state.tolerance, w.state.blocks ? w.state.ratio() : 0.0);
      all.out.merge(w.out);
      all.state.merge(w.state);
    }
    std::printf("  all: outputs: %s\n  all: states: %s\n", all.out.describe().c_str(), all.state.describe().c_str());
    return all.state.blocks;
  };
  print("kernel rounding", kernel);
  EXPECT_GT(print("rounding off", off), 0);  // flushes were judged
}

}  // namespace
}  // namespace kda::gdn::test
