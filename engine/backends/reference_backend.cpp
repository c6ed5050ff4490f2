// The CPU reference as a backend: the operator's reference step on the host tensors.
#include "engine/backends/reference_backend.hpp"

#include "contract/validate.hpp"

namespace kda::engine {
namespace {

class ReferenceBackend final : public Backend {
 public:
  ReferenceBackend(std::string name, reference::Rounding rounding, const OperatorDescription& op)
      : name_(std::move(name)), rounding_(rounding), op_(op) {
    envelope_.invalid_rows = InvalidRows::Raise;  // the reference step checks the runtime values
    envelope_.ring_modes = KDA_RING_ALL;          // every ring variant an operator has
  }
  std::string name() const override { return name_; }
  const Envelope& envelope() const override { return envelope_; }
  const OperatorDescription& op() const override { return op_; }
  void step(const StepArgs& host) override { op_.reference_step(op_.bind(host), rounding_); }

 private:
  std::string name_;
  reference::Rounding rounding_;
  const OperatorDescription& op_;
  Envelope envelope_;  // every dtype, size and layout the contract allows, on the CPU
};

}  // namespace

std::unique_ptr<Backend> make_reference_backend(reference::Rounding rounding, const OperatorDescription& op) {
  return std::make_unique<ReferenceBackend>(rounding == reference::Rounding::Kernel ? "reference" : "reference-double",
                                            rounding, op);
}

}  // namespace kda::engine
