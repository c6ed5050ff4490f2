// The curated golden set: what each case is for, the CaseConfig it is generated from, and
// the row patterns it claims (checked when it is generated, so a change in the case
// generator that loses a claimed pattern fails `golden regen` instead of silently thinning
// the set). Error cases name the error input (operators/kda_replayssm/error_inputs.hpp) that breaks
// the valid call; the error it must raise comes from that input.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cases/case_config.hpp"

namespace kda::golden {

// Row patterns a step case can claim (over all of its steps).
enum class Feature {
  Append,            // a non-padding row below L-1 without force_flush: ring records written
  NaturalFlush,      // a row at cursor L-1
  ForcedFlush,       // a row below L-1 with force_flush != 0
  Padding,           // a row with slot -1
  DivergentCursors,  // at step 0, every non-padding row (at least 3) at a different cursor
};
const char* feature_name(Feature f);

struct GoldenSpec {
  std::string name, purpose;
  std::string op = "kda_replayssm";  // the operator (engine/operator.hpp) the case calls
  CaseConfig config;
  // step -> force_flush value per row, replacing the generator's draw for that step (the
  // scripted flush of a case that must flush at a given step). force_flush is a per-token
  // input, so overriding it changes nothing else in the case.
  std::map<int64_t, std::vector<int32_t>> forced;
  std::vector<Feature> features;
  // `a` re-laid row-padded (cases/row_padding.hpp) after the config is materialized, so the
  // values and every other case's random draws stay as they are. The config line does not
  // record it: `kda-harness case "<config>"` replays `a` compact, the file replays it padded.
  bool a_row_padded = false;
  // Error cases: the label of the error input that breaks the valid call of `config`, and
  // which of its variants.
  std::string error_input;
  uint32_t error_variant = 0;
  bool is_error() const { return !error_input.empty(); }
};

// The plain packed decode's cases (packed_decode_golden_cases.cpp), after ReplaySSM's.
void add_packed_decode_cases(std::vector<GoldenSpec>& out);

// Every case of the set, in a fixed order, names unique.
const std::vector<GoldenSpec>& golden_specs();

}  // namespace kda::golden
