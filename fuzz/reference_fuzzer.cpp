// libFuzzer target: bytes -> a small valid CaseConfig (the default operator's sample space,
// OperatorDescription::sample_case, read through fdp_chooser.hpp; WellConditioned or
// Adversarial values) -> the key property of the reference: a rollout of ReplaySSM steps
// equals the plain float64 recurrence, outputs at every token and checkpoints after every
// flush, within the tolerance model (reference/tolerance.hpp). Three models are rolled out:
//   - Rounding::Kernel (the kernel's rounding points) and Rounding::Off on the case's
//     tensors, judged with rollout_bounds(config) plus the measured gate-mass term;
//   - ReplayModel<double> (float64 rings), judged with the fixed kPureDoubleBound.
// A comparison beyond tolerance, any NaN/inf where the plain recurrence is finite (compare
// fails on them), any exception, or a sanitizer report is a finding; the finding prints
// "case: <one-line config>", which this target reads back as an input (regressions/).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>

#include "cases/case_config.hpp"
#include "engine/description/suite_limits.hpp"
#include "engine/driver/reference_vs_truth.hpp"
#include "fuzz/fdp_chooser.hpp"
#include "fuzz/fuzz_finding.hpp"
#include "operators/replayssm_family/sample_space.hpp"

namespace {

constexpr const char* kTarget = "reference_fuzzer";

const char* model_name(kda::engine::ReferenceModel m) {
  using kda::engine::ReferenceModel;
  return m == ReferenceModel::Kernel ? "Rounding::Kernel" : m == ReferenceModel::Off ? "Rounding::Off" : "PureDouble";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kda;
  // A regression input may also be "case: <one-line config>", as a finding prints it:
  // readable, and stable when the byte decoder changes. Invalid text is skipped.
  CaseConfig config;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (text.rfind("case:", 0) == 0) {
    try {
      config = parse_case_config(text.substr(5));
    } catch (const std::invalid_argument&) {
      return 0;
    }
    if (!is_valid_config(config) || rollout_work(config) > 1e8) return 0;
  } else {
    FuzzedDataProvider fdp(data, size);
    fuzz::FdpChooser chooser(fdp);
    config = engine::default_operator().sample_case(chooser, engine::limits::reference_fuzzing());
  }
  if (!is_valid_config(config)) fuzz::finding(kTarget, "the decoder made an invalid config: " + to_string(config));
  for (auto model : {engine::ReferenceModel::Kernel, engine::ReferenceModel::Off, engine::ReferenceModel::PureDouble}) {
    engine::CaseReport report;
    try {
      report = engine::reference_vs_truth(config, model);
    } catch (const std::exception& e) {
      fuzz::finding(kTarget, std::string(model_name(model)) + " rollout threw " + typeid(e).name() + ": " + e.what() +
                                 "\ncase: " + to_string(config));
    }
    if (!report.pass())
      fuzz::finding(kTarget, std::string(model_name(model)) + " rollout vs the plain float64 recurrence:\n" +
                                 report.summary() + "\ncase: " + to_string(config));
  }
  return 0;
}
