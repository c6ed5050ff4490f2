// A golden case as an operator states it (OperatorDescription::golden_cases): what it is for,
// the CaseConfig it is generated from, and the row patterns it claims (checked when it is
// generated, so a change in the case generator that loses a claimed pattern fails `golden
// regen` instead of silently thinning the set). Error cases name the operator's error input
// that breaks the valid call; the error it must raise comes from that input. golden/ turns
// each spec into a file (golden/golden_generate.hpp) and verifies it.
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
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
  HistoryCheckpoint, // a circular ring's row at cursor L-1, not forced (L > 1): the state before the token stored
  WrappedWindow,     // a circular ring's row whose window or appended record wraps past physical slot L-1
};
const char* feature_name(Feature f);

struct GoldenSpec {
  // name: the case's own, unique among its operator's; golden_specs() prefixes its operator's
  // ("<operator>.<case>": the set's name of the case, and its file's).
  std::string name, purpose;
  // The operator the case calls: the one whose description lists it (golden_specs() sets it).
  std::string op;
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

// A spec that does not hold: a claimed row pattern missing, a script that does not fit, or
// an error case whose call does not raise the stated error.
class GenerationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace kda::golden
