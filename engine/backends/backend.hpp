// A Backend is anything the harness judges: the Eigen reference, the pure-double model, our
// CUDA kernel, a plugin shared library (include/kda_harness/plugin.h), a Python callable.
// The engine drives every backend through this one interface, on HOST tensors: a backend
// whose tensors live elsewhere (a GPU) mirrors them itself, so every check (footprint,
// guards, comparisons) reads host bytes.
//
// A backend declares what it is: its envelope (what it accepts; the engine samples inside it
// and checks that a call outside it is refused, nothing written) and its rounding profile
// (which bound its results are judged by: engine/description/profile.hpp).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cases/case_config.hpp"
#include "contract/step_args.hpp"
#include "engine/description/envelope.hpp"
#include "engine/description/operator.hpp"
#include "engine/description/profile.hpp"

namespace kda::engine {

// How long `Backend::time_steps` times one call: at least min_runs steps, then more until
// `seconds` of timed steps or max_runs (`check --time`).
struct TimingBudget {
  int64_t min_runs = 5, max_runs = 200;
  double seconds = 0.3;
};

// What time_steps measured: each timed step's microseconds, and the clock that measured them.
struct StepTimes {
  std::vector<double> us;
  std::string clock;  // "steady clock" (the whole step()) or "CUDA events" (the launch on the device)
};

// A call the backend refused for a reason of its own (outside its envelope, say), not with
// a contract error: nothing was written. Contract errors stay kda::ContractError.
struct BackendRefusal : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // What make_backend() takes to make this backend again (a replay line names it).
  virtual std::string spec() const { return name(); }
  virtual const Envelope& envelope() const = 0;
  virtual Profile profile() const { return Profile::Helion; }
  // True for a backend that rounds every rounding point away from the exact value (the
  // profile emulations' worst case): judged by the bounds of that rounding (engine/description/profile.hpp).
  virtual bool rounds_directed() const { return false; }
  // The operator it implements (engine/description/operator.hpp); step() takes that operator's arguments
  // (op().bind() of a case's tensors).
  virtual const OperatorDescription& op() const { return default_operator(); }
  // One step on host tensors, in place. Throws ContractError or BackendRefusal for a refused
  // call, after which no byte of any argument may have changed.
  virtual void step(const StepArgs& host) = 0;
  // The same step in two halves, for a backend that computes elsewhere (a GPU), so that the
  // driver can do what does not depend on the step's results while it runs. start_step
  // queues the step and returns true at once; the host tensors keep every byte until
  // finish_step, which waits for the step, brings its results into the host tensors and
  // throws what step() would have thrown (start_step itself throws nothing: a refusal waits
  // for finish_step, after which no byte of any argument may have changed). `host` stays
  // valid until finish_step returns. False (the default): this backend cannot, and the
  // driver calls step() instead.
  virtual bool start_step(const StepArgs& /*host*/) { return false; }
  virtual void finish_step() {}
  // The per-row status flags of the last step (kernels/row_status.hpp), for backends that
  // report rows they reject at run time instead of raising; nullopt for the others.
  virtual std::optional<std::vector<int32_t>> row_status() { return std::nullopt; }
  // False when the backend's own memory around the tensors (device guard regions) changed.
  virtual bool guards_intact() const { return true; }
  // Times steps of one valid call, the same inputs each time (what the steps write is not
  // judged), after one untimed step. The default times step() on a steady clock: a host
  // backend's step is the whole of its work. A GPU backend uploads the tensors once and times
  // its launch alone between CUDA events. Throws what step() throws.
  virtual StepTimes time_steps(const StepArgs& host, const TimingBudget& budget);
  // The bandwidth a plain copy of memory where the tensors live reaches, in GB/s counting the
  // bytes read and the bytes written (the benchmark's definition): host memcpy by default,
  // a device-to-device copy for a GPU backend.
  virtual double copy_gbps();
};

// The backends the harness knows, by the name the command line takes:
//   reference          the operator's Eigen reference step with the kernel's rounding points (CPU)
//   reference-double   the same step in float64 arithmetic, stores still rounded (CPU)
//   cuda[:N]           our CUDA kernel on GPU N (default: the CTest-assigned one, else 0)
//   plugin:PATH        a shared library exporting kda_plugin_describe (plugin.h)
//   emulate:PROFILE[:directed]  the CPU emulation of a rounding profile (helion, triton),
//                      rounding to nearest or every rounding point the worst way
//   perturb:TENSOR-HOW:K:BACKEND  BACKEND with one written tensor moved by K units of
//                      roundoff (engine/backends/perturb_backend.hpp)
// Throws std::invalid_argument for an unknown name, std::runtime_error when it cannot be
// made here (no GPU, a plugin that does not load, a plugin or kernel of another operator).
std::unique_ptr<Backend> make_backend(const std::string& spec, const OperatorDescription& op = default_operator());
// The operator a backend spec names itself: a plugin's (plugin:PATH, also as perturb:'s
// BACKEND), read from its description, or nullptr for a backend that serves whichever operator
// it is asked for. Throws as make_backend where the plugin does not load. Every subcommand
// judges this operator where --op is not given (tools/op_option.cpp).
const OperatorDescription* operator_named_by(const std::string& spec);

struct BackendKind {
  std::string name, what;  // "cuda[:N]", one line
};
const std::vector<BackendKind>& backend_kinds();

}  // namespace kda::engine
