#include "engine/driver/step_timing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "cases/case_tensors.hpp"
#include "engine/description/operator_words.hpp"
#include "engine/driver/case_driver.hpp"

namespace kda::engine {
namespace {

constexpr int64_t kBatches[] = {1, 64};
constexpr int64_t kRings[] = {1, 8, 64};  // the plain decode, a short ring, a long ring

std::string class_name(const OperatorDescription& op, const CaseConfig& c) {
  if (!has_ring(op)) return fmt::format("decode B={}", c.B);
  return fmt::format("{} L={} B={}", c.L == 1 ? "decode" : c.L <= 16 ? "short ring" : "long ring", c.L, c.B);
}

// The case's tensors made the timed call: every ring record finite (the generator leaves the
// records at and past each cursor NaN) and every row's cursor at c.cursor (an operator whose
// call has no rings or cursors keeps its tensors as made).
void set_cursors(CaseTensors& t, int64_t cursor) {
  for (HostTensor* ring : {&t.d_cache, &t.k_cache, &t.g_cache})
    for (int64_t i = 0; i < ring->numel(); ++i)
      if (std::isnan(ring->get_linear(i))) ring->set_linear(i, 0.0);
  if (t.write_pos.numel() != t.config.B) return;
  for (int64_t row = 0; row < t.config.B; ++row) t.write_pos.set_linear(row, static_cast<double>(cursor));
}

}  // namespace

StepTimes Backend::time_steps(const StepArgs& host, const TimingBudget& b) {
  using clock = std::chrono::steady_clock;
  step(host);  // untimed
  StepTimes t{{}, "steady clock"};
  double total = 0;
  while (static_cast<int64_t>(t.us.size()) < b.max_runs &&
         (static_cast<int64_t>(t.us.size()) < b.min_runs || total < 1e6 * b.seconds)) {
    const auto start = clock::now();
    step(host);
    t.us.push_back(std::chrono::duration<double, std::micro>(clock::now() - start).count());
    total += t.us.back();
  }
  return t;
}

double Backend::copy_gbps() {
  constexpr std::size_t bytes = std::size_t{64} << 20;
  std::vector<char> from(bytes, 1), to(bytes, 0);
  std::vector<double> us;
  for (int i = 0; i <= 5; ++i) {
    const auto start = std::chrono::steady_clock::now();
    std::memcpy(to.data(), from.data(), bytes);
    const double t = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    if (i > 0) us.push_back(t);  // the first copy touches the pages
    from[static_cast<std::size_t>(i)] = to[bytes - 1];  // keeps the copies from being elided
  }
  std::sort(us.begin(), us.end());
  return 2.0 * static_cast<double>(bytes) / (us[us.size() / 2] * 1e3);
}

std::vector<TimeClass> time_classes(const OperatorDescription& op, const Envelope& envelope) {
  std::vector<TimeClass> out;
  for (const int64_t L : kRings)
    for (const int64_t B : kBatches) {
      CaseConfig c;
      c.H = c.HV = 32;
      c.K = c.V = 128;
      c.B = c.slots = B;
      c.L = L;
      c.act_dtype = c.ring_dtype = c.out_dtype = ScalarType::BFloat16;
      c.state_dtype = ScalarType::Float32;
      c.index_dtype = ScalarType::Int32;
      c.pad_fraction = 0, c.pad_ends = false;
      c.flush_prob = 0, c.random_cursors = false;
      c.envelope = false;
      c.steps = 1;
      const std::optional<CaseConfig> fitted = envelope.fit(op.fit_case(c));
      if (!fitted) continue;
      const CaseConfig f = op.fit_case(*fitted);
      const bool seen = std::any_of(out.begin(), out.end(), [&](const TimeClass& t) { return t.config == f; });
      if (!seen) out.push_back({class_name(op, f), f, f.L / 2});
    }
  return out;
}

StepBytes class_bytes(const TimeClass& c) {
  return uniform_step_bytes(model_shape(c.config), c.config.B, c.cursor, c.cursor == c.config.L - 1);
}

TimingReport time_backend(Backend& backend, const TimingBudget& budget) {
  TimingReport r;
  r.backend = backend.name();
  r.copy_gbps = backend.copy_gbps();
  for (const TimeClass& cls : time_classes(backend.op(), backend.envelope())) {
    ClassTime ct;
    ct.cls = cls;
    ct.bytes = class_bytes(cls);
    try {
      CaseTensors t = materialize_case(backend.op(), cls.config);
      set_cursors(t, cls.cursor);
      const StepTimes times = backend.time_steps(backend.op().bind(t.args()), budget);
      r.clock = times.clock;
      ct.stats = summarize(times.us, 1);
      ct.gbps = ct.bytes.total() / (ct.stats.median_us * 1e3);
      ct.copy_fraction = r.copy_gbps > 0 ? ct.gbps / r.copy_gbps : 0;
    } catch (const std::exception& e) {
      ct.problem = e.what();
    }
    r.classes.push_back(std::move(ct));
  }
  return r;
}

std::string TimingReport::text() const {
  std::string s = fmt::format("time: {} per step, {} (median of the runs); a plain copy {:.1f} GB/s (read + written); "
                              "bytes by the benchmark's model; the same inputs every run, so a class that fits in a cache runs from it; "
                              "timing decides nothing\n",
                              backend, clock.empty() ? "not timed" : clock, copy_gbps);
  s += fmt::format("  {:<22} {:>11} {:>19} {:>5} {:>10} {:>8} {:>8}\n", "class", "median us", "p10..p90 us", "runs",
                   "MB/step", "GB/s", "of copy");
  for (const ClassTime& c : classes) {
    if (!c.problem.empty()) {
      s += fmt::format("  {:<22} not timed: {}\n", c.cls.name, c.problem);
      continue;
    }
    s += fmt::format("  {:<22} {:>11.1f} {:>19} {:>5} {:>10.3f} {:>8.1f} {:>7.1f}%\n", c.cls.name, c.stats.median_us,
                     fmt::format("{:.1f}..{:.1f}", c.stats.p10_us, c.stats.p90_us), c.stats.samples,
                     c.bytes.total() / 1e6, c.gbps, 100 * c.copy_fraction);
  }
  return s;
}

}  // namespace kda::engine
