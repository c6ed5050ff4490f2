// The CPU reference as a backend: reference::replayssm_step on the host tensors.
#include "engine/reference_backend.hpp"

#include "contract/validate.hpp"

namespace kda::engine {
namespace {

class ReferenceBackend final : public Backend {
 public:
  ReferenceBackend(std::string name, reference::Rounding rounding) : name_(std::move(name)), rounding_(rounding) {}
  std::string name() const override { return name_; }
  const Envelope& envelope() const override { return envelope_; }
  void step(const StepArgs& host) override { reference::replayssm_step(host, rounding_); }

 private:
  std::string name_;
  reference::Rounding rounding_;
  Envelope envelope_;  // every dtype, size and layout the contract allows, on the CPU
};

}  // namespace

std::unique_ptr<Backend> make_reference_backend(reference::Rounding rounding) {
  return std::make_unique<ReferenceBackend>(rounding == reference::Rounding::Kernel ? "reference" : "reference-double",
                                            rounding);
}

}  // namespace kda::engine
