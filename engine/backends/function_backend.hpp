// A backend made of functions: a step on host tensors, and optionally a row-status report
// and a guard check. For wrapping a computation that is not a library of its own (the
// harness's self-tests plant faults this way).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/backends/backend.hpp"

namespace kda::engine {

class FunctionBackend final : public Backend {
 public:
  using Step = std::function<void(const StepArgs& host)>;
  FunctionBackend(std::string name, Step step, Profile profile = Profile::Helion, Envelope envelope = {})
      : name_(std::move(name)), step_(std::move(step)), profile_(profile), envelope_(envelope) {}
  std::string name() const override { return name_; }
  const Envelope& envelope() const override { return envelope_; }
  Profile profile() const override { return profile_; }
  void step(const StepArgs& host) override { step_(host); }
  std::optional<std::vector<int32_t>> row_status() override {
    return row_status_ ? std::optional(row_status_()) : std::nullopt;
  }
  bool guards_intact() const override { return guards_ ? guards_() : true; }

  std::function<std::vector<int32_t>()> row_status_;  // unset: reports none
  std::function<bool()> guards_;                       // unset: none to check

 private:
  std::string name_;
  Step step_;
  Profile profile_;
  Envelope envelope_;
};

}  // namespace kda::engine
