// Uses the installed harness as a user's test would: validate a call of a case, then judge
// the reference backend on it against the float64 plain recurrence.
#include <cstdio>

#include "cases/case_tensors.hpp"
#include "contract/validate.hpp"
#include "engine/backend.hpp"
#include "engine/run_case.hpp"
#include "kda_harness/plugin.h"

int main() {
  const kda::CaseConfig c = kda::parse_case_config("B=3 H=2 HV=4 K=16 V=16 L=4 slots=5 steps=6 seed=2");
  kda::CaseTensors t = kda::materialize(c);
  const kda::Dims d = kda::validate(t.args(), kda::Backend::Cpu);
  const auto backend = kda::engine::make_backend("reference");
  const kda::engine::CaseReport r = kda::engine::run_vs_truth(c, *backend);
  std::printf("dims B=%lld HV=%lld; plugin ABI %d; %s\n", static_cast<long long>(d.B), static_cast<long long>(d.HV),
              KDA_PLUGIN_ABI_VERSION, r.summary().c_str());
  return r.pass() ? 0 : 1;
}
