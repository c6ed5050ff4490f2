// Uses the installed harness as a user's test would: validate a call of a case and its JSON
// metadata, then judge the reference backend on it against the float64 plain recurrence.
#include <cstdio>
#include <string>

#include "kda_harness/contract/metadata_json.hpp"
#include "kda_harness/contract/validate.hpp"
#include "kda_harness/engine/backends/backend.hpp"
#include "kda_harness/engine/driver/run_case.hpp"
#include "kda_harness/operators/replayssm_family/case_tensors.hpp"
#include "kda_harness/plugin.h"

int main() {
  const kda::CaseConfig c = kda::parse_case_config("B=3 H=2 HV=4 K=16 V=16 L=4 slots=5 steps=6 seed=2");
  kda::CaseTensors t = kda::materialize_replayssm_case(c);
  const kda::Dims d = kda::validate(t.args(), kda::Backend::Cpu);
  // The metadata as a std::string, read back: the overload for JSON text is chosen.
  const std::string metadata = kda::call_metadata_json(t.args()).dump();
  kda::StepTensors parsed = kda::parse_call_metadata(metadata);
  const kda::Dims parsed_dims = kda::validate(parsed.args(), kda::Backend::Any);
  const auto backend = kda::engine::make_backend("reference");
  const kda::engine::CaseReport r = kda::engine::run_vs_truth(c, *backend);
  std::printf("dims B=%lld HV=%lld (from JSON: B=%lld); plugin ABI %d; %s\n", static_cast<long long>(d.B),
              static_cast<long long>(d.HV), static_cast<long long>(parsed_dims.B), KDA_PLUGIN_ABI_VERSION,
              r.summary().c_str());
  return r.pass() && parsed_dims.B == d.B ? 0 : 1;
}
