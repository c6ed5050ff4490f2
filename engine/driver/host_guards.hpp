// Guard regions for backends that compute on host memory (the reference, CPU plugins, Python
// callables), as DeviceTensor gives a device backend: each step runs on copies of the call's
// tensors, each lent in its own buffer between two regions of a fixed byte pattern, and those
// between guard pages (engine/driver/guard_pages.hpp). After the step, whatever it did (a refusal
// included), the tensors are copied back to the caller's and the patterns checked: a write
// up to kGuardBytes before or past a tensor fails the case naming it; one farther, up to the
// tensor's own size away, faults on a guard page, and the fatal-signal report names it.
// Nothing lands in the harness's heap. The buffers are kept from step to step (a case's
// shapes do not change).
#pragma once
#include <array>
#include <cstddef>
#include <string>

#include "contract/step_args.hpp"
#include "contract/step_fields.hpp"
#include "engine/backends/backend.hpp"
#include "engine/driver/guard_pages.hpp"

namespace kda::engine {

class HostGuards {
 public:
  // Bytes of pattern on each side of a lent tensor, at least.
  static constexpr std::size_t kGuardBytes = GuardedBuffer::kPatternBytes;

  // backend.step(args) on guarded copies of args' tensors, copied back afterwards; rethrows
  // what the step threw. damage() then says which guard regions changed ("" when none).
  void step(Backend& backend, const StepArgs& args);
  const std::string& damage() const { return damage_; }

 private:
  static constexpr std::size_t kTensors = kStepTensors.size();  // StepArgs' tensor arguments
  std::array<GuardedBuffer, kTensors> buffers_;
  // Whether buffers_[i]'s guard regions hold the pattern: checked intact after the last step
  // and the buffer's size unchanged since, so they need no filling again.
  std::array<bool, kTensors> patterned_{};
  std::string damage_;
};

// Whether backend computes on host memory (its envelope's device is the CPU): only then are
// its tensors lent through HostGuards; a device backend checks its own (DeviceTensor).
bool lends_host_memory(const Backend& backend);

}  // namespace kda::engine
