#include "engine/backends/emulation_backend.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "reference/profile_emulation.hpp"

namespace kda::engine {
namespace {

class EmulationBackend final : public Backend {
 public:
  EmulationBackend(std::string spec, Profile profile, bool directed, const OperatorDescription& op)
      : spec_(std::move(spec)), profile_(profile), directed_(directed), op_(op),
        emulation_({profile == Profile::Triton, profile == Profile::Triton, directed}) {
    envelope_.invalid_rows = InvalidRows::Raise;  // the emulated step checks the runtime values
  }
  std::string name() const override { return "emulate:" + spec_; }
  const Envelope& envelope() const override { return envelope_; }
  Profile profile() const override { return profile_; }
  bool rounds_directed() const override { return directed_; }
  const OperatorDescription& op() const override { return op_; }
  // The emulations model the linear ring only (reference/profile_emulation.hpp).
  void step(const StepArgs& host) override {
    if (host.circular_replay) throw std::invalid_argument("outside the envelope: the emulations model linear rings only");
    op_.emulated_step(emulation_, op_.bind(host));
  }

 private:
  std::string spec_;
  Profile profile_;
  bool directed_;
  const OperatorDescription& op_;
  reference::ProfileEmulation emulation_;
  Envelope envelope_;  // every dtype, size and layout the contract allows, on the CPU
};

}  // namespace

std::unique_ptr<Backend> make_emulation_backend(const std::string& spec, const OperatorDescription& op) {
  const std::size_t colon = spec.find(':');
  const std::string profile_name = spec.substr(0, colon), mode = colon == std::string::npos ? "" : spec.substr(colon + 1);
  const std::optional<Profile> profile = parse_profile(profile_name);
  if (!profile || (!mode.empty() && mode != "directed"))
    throw std::invalid_argument("not an emulation: '" + spec + "' (helion or triton, optionally :directed)");
  if (op.emulated_step == nullptr)
    throw std::invalid_argument(fmt::format("no rounding-profile emulation of {} exists", op.name));
  return std::make_unique<EmulationBackend>(spec, *profile, mode == "directed", op);
}

}  // namespace kda::engine
