#include "engine/reports/phase_times.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace kda::engine {
namespace {

using Clock = std::chrono::steady_clock;
using Nanos = int64_t;
constexpr int kPhases = static_cast<int>(Phase::Count);
constexpr const char* kNames[kPhases] = {"allocate", "fill",      "upload",    "step",
                                         "download", "footprint", "reference", "compare", "other"};

std::array<std::atomic<int64_t>, kPhases> g_ns{};
std::atomic<int64_t> g_cases{0}, g_steps{0};

// The innermost open scope of this thread and when its current stretch began.
struct Open {
  bool any = false;
  Phase phase{};
  Nanos since = 0;
};
thread_local Open t_open;

// KDA_PHASE_TIMES=cpu: the thread's CPU time (on a machine shared with other work, what the
// harness itself spent); any other value: wall time (what a run waits, GPU waits included).
bool g_cpu_time = false;

Nanos now() {
  if (g_cpu_time) {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<Nanos>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
  }
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

void charge(Phase p, Nanos from, Nanos to) { g_ns[static_cast<int>(p)].fetch_add(to - from, std::memory_order_relaxed); }

void print_at_exit() { std::fputs(phase_table(phase_totals()).c_str(), stderr); }

bool read_switch() {
  const char* v = std::getenv("KDA_PHASE_TIMES");
  const bool on = v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
  g_cpu_time = on && std::strcmp(v, "cpu") == 0;
  if (on) std::atexit(print_at_exit);
  return on;
}

}  // namespace

bool phase_times_enabled() {
  static const bool on = read_switch();
  return on;
}

bool phase_times_cpu() { return phase_times_enabled() && g_cpu_time; }

Phase current_phase() { return t_open.any ? t_open.phase : Phase::Other; }

void PhaseScope::begin(Phase phase) {
  const Nanos now = ::kda::engine::now();
  active_ = true;
  phase_ = phase;
  has_outer_ = t_open.any;
  outer_ = t_open.phase;
  if (has_outer_) charge(outer_, t_open.since, now);
  t_open = {true, phase, now};
}

void PhaseScope::end() {
  const Nanos now = ::kda::engine::now();
  charge(phase_, t_open.since, now);
  t_open = {has_outer_, outer_, now};
}

void count_case() {
  if (phase_times_enabled()) g_cases.fetch_add(1, std::memory_order_relaxed);
}
void count_step() {
  if (phase_times_enabled()) g_steps.fetch_add(1, std::memory_order_relaxed);
}

PhaseTotals phase_totals() {
  PhaseTotals t;
  for (int p = 0; p < kPhases; ++p) t.seconds[p] = static_cast<double>(g_ns[p].load()) * 1e-9;
  t.cases = g_cases.load();
  t.steps = g_steps.load();
  return t;
}

std::string phase_table(const PhaseTotals& t) {
  double total = 0;
  for (double s : t.seconds) total += s;
  std::string out = fmt::format("phase times ({} cases, {} steps; {} time, summed over threads)\n", t.cases, t.steps,
                                g_cpu_time ? "CPU" : "wall");
  out += fmt::format("  {:<10} {:>10} {:>7} {:>11} {:>11}\n", "phase", "seconds", "share", "ms/case", "us/step");
  const auto line = [&](const char* name, double s) {
    out += fmt::format("  {:<10} {:>10.3f} {:>6.1f}% {:>11.3f} {:>11.1f}\n", name, s, total > 0 ? 100 * s / total : 0.0,
                       t.cases > 0 ? 1e3 * s / static_cast<double>(t.cases) : 0.0,
                       t.steps > 0 ? 1e6 * s / static_cast<double>(t.steps) : 0.0);
  };
  for (int p = 0; p < kPhases; ++p) line(kNames[p], t.seconds[p]);
  line("total", total);
  return out;
}

}  // namespace kda::engine
