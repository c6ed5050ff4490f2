// Where the driver's time goes, by phase, for profiling the harness itself (off by default).
// With KDA_PHASE_TIMES set in the environment (any value but "" or "0"), every PhaseScope adds
// its time to its phase, and the process prints the table to stderr when it exits: wall time,
// or with KDA_PHASE_TIMES=cpu the thread's CPU time (on a machine shared with other work).
// Scopes nest: an inner scope's time is taken out of the outer one's, so the phases add up
// to the time spent inside any scope. Off, a scope costs one load of a flag.
#pragma once
#include <array>
#include <cstdint>
#include <string>

namespace kda::engine {

enum class Phase : uint8_t {
  Allocate,   // host tensors of a case, device buffers
  Fill,       // a case's values: materialize, each token's inputs
  Upload,     // host -> device copies, out's and the status tensor's poison
  Step,       // the backend's step: a CPU step; a launch, and the wait for the kernel and its
              // read-backs that the oracle's work meanwhile (Backend::start_step) did not cover
  Download,   // read-backs queued, and copied from staging into the host tensors
  Footprint,  // the bytes before a step, the footprint and refusal checks, device guards
  Reference,  // an oracle's own computation: the reference step, the truth's recurrence
  Compare,    // an oracle's comparisons
  Other,      // the rest of a case in the driver: planning rows, cursors, bookkeeping
  Count
};

bool phase_times_enabled();
// True when the table is of CPU time (KDA_PHASE_TIMES=cpu): a helper thread's time then adds
// to its phase; in wall time only what the driver's thread waits for counts.
bool phase_times_cpu();

// The phase this thread's innermost open scope times (Other where none is open): a helper
// thread doing part of that work times it as the same phase.
Phase current_phase();

// Times the enclosing block as `phase` (nothing when profiling is off).
class PhaseScope {
 public:
  explicit PhaseScope(Phase phase) {
    if (phase_times_enabled()) begin(phase);
  }
  ~PhaseScope() {
    if (active_) end();
  }
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  void begin(Phase phase);
  void end();
  bool active_ = false;
  Phase phase_{};
  Phase outer_{};
  bool has_outer_ = false;
};

// f() timed as `phase`.
template <class F>
auto timed(Phase phase, F&& f) {
  const PhaseScope scope(phase);
  return f();
}

// Counts one case (or one step) for the per-case and per-step columns.
void count_case();
void count_step();

struct PhaseTotals {
  std::array<double, static_cast<int>(Phase::Count)> seconds{};
  int64_t cases = 0, steps = 0;
};
PhaseTotals phase_totals();
// The table: seconds, share and milliseconds per case of each phase.
std::string phase_table(const PhaseTotals& totals);

}  // namespace kda::engine
