// Planted bugs of the CPU example plugin, one per build (KDA_MUTANT=<n>, see CMakeLists.txt):
// each is a plausible bug of the kind real decode kernels ship. The harness must catch every
// one (its self-test); the shipped plugin has KDA_MUTANT undefined.
#pragma once
#include <cstdint>

#define KDA_MUTANT_GQA_HEAD_MOD 1  // k/q head of value head hv taken as hv % H, not hv / (HV/H)

#ifndef KDA_EXAMPLE_PLUGIN_NAME
#define KDA_EXAMPLE_PLUGIN_NAME "cpu-example"
#endif

namespace kda::example {

// The query/key head of value head hv (semantics.md: h = hv / (HV/H)).
inline int64_t query_head(int64_t hv, int64_t H, int64_t HV) {
#if defined(KDA_MUTANT) && KDA_MUTANT == KDA_MUTANT_GQA_HEAD_MOD
  (void)HV;
  return hv % H;
#else
  return hv / (HV / H);
#endif
}

}  // namespace kda::example
