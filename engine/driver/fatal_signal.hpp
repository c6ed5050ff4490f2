// Names the case a fatal signal interrupts. A backend that overflows a buffer, aborts or faults
// takes the whole process with it; before it dies the process prints, on standard error, the
// signal and the replay line of every case in flight on the thread that faulted (all threads'
// cases when the signal came from outside), so the crash is one command away from a debugger.
// A fault on a guard page of a lent tensor is named: which tensor, how far outside it.
// The handler only calls write(2) on lines formatted before the case started, then gives the
// signal to the handler that was there before (pytest's faulthandler, say) or the default.
#pragma once
#include <string_view>

namespace kda::engine {

// Installs the handler for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT, and exit handlers
// (atexit, at_quick_exit) for a backend that calls exit() or quick_exit() inside a case: that
// would end the process with the status it chose, 0 included, and no summary, which reads as a
// pass; the handler prints the cases in flight as above and ends the process with status 1
// (a check failed). Once per process; later calls do nothing.
void install_fatal_signal_report();

// In a process that runs one case for a parent which judges its exit status (check
// --isolate's child): exit() inside a case keeps the status the backend gave.
void keep_exit_status_of_cases();

// In a process that runs one case for a parent (check --isolate's child): a fault the report
// can explain (an access that hit a guard page of a lent tensor, engine/driver/guard_pages.hpp) is
// also written to fd as one line, "fault: " and the explanation, for the parent's message.
void send_fault_notes_to(int fd);

// While alive, the calling thread runs the case `replay` replays (lines past a fixed length
// are cut). Nests: the innermost is the one reported.
class CaseInFlight {
 public:
  explicit CaseInFlight(std::string_view replay);
  ~CaseInFlight();
  CaseInFlight(const CaseInFlight&) = delete;
  CaseInFlight& operator=(const CaseInFlight&) = delete;

 private:
  int slot_;
  int previous_;
};

}  // namespace kda::engine
