// A backend's envelope: the dtypes of each argument, the K, V and L it takes, whether it
// takes strided tensors, and the device its tensors live on (plugin.h's kda_envelope, in
// C++). The engine samples cases inside it (fit) and builds calls just outside it (to check
// that the backend refuses them cleanly).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cases/case_config.hpp"
#include "kda_harness/plugin.h"

namespace kda::engine {

struct OperatorDescription;

enum class Device { Cpu, Cuda };

// How a backend treats a runtime-invalid row (a slot past the pool, a cursor outside the
// ring, two rows on one slot: values only the device sees; plugin.h's KDA_INVALID_ROWS_*).
// Padding rows (negative slots) are valid under every declaration and always tested.
enum class InvalidRows {
  None,   // SGLang's contract: the caller's duty; never fed (unless probed), nothing claimed
  Raise,  // the step refuses the call, nothing written
  Flag,   // the step reports the row in its row status and touches nothing of it (our kernel)
};
// "none", "raise", "flag"; and back (nullopt for another word).
std::string_view name_of(InvalidRows r);
std::optional<InvalidRows> invalid_rows_named(std::string_view name);
// What the suites test of a backend with declaration `r` (`probe`: --probe-invalid-indices),
// in one line for reports: which claims are tested, which the backend did not make.
std::string invalid_rows_claim(InvalidRows r, bool probe, const OperatorDescription& op);

struct Envelope {
  uint32_t act_dtypes = KDA_DT_ALL_FLOATS;
  uint32_t state_dtypes = KDA_DT_ALL_FLOATS;
  uint32_t ring_dtypes = KDA_DT_ALL_FLOATS;
  uint32_t out_dtypes = KDA_DT_ALL_FLOATS;
  uint32_t index_dtypes = KDA_DT_ALL_INDICES;
  // Index dtypes the operator's cases never have (its fit_case replaces them: an operator's
  // int64, which its contract refuses): no way out of the envelope although not declared, so
  // they count as inside everywhere but in describe().
  uint32_t index_dtypes_fitted_away = 0;
  // The index dtypes a case may have inside: the declared ones and those fitted away.
  uint32_t index_dtypes_inside() const { return index_dtypes | index_dtypes_fitted_away; }
  int64_t k_min = 1, k_max = int64_t{1} << 20;
  int64_t v_min = 1, v_max = int64_t{1} << 20;
  int64_t l_max = 0;  // 0: no limit
  bool strided = true;
  Device device = Device::Cpu;
  // plugin.h's KDA_RING_* bits: the ring variants it serves. A variant the operator has
  // (OperatorDescription::ring_variants) and this lacks is a way out of the envelope.
  uint32_t ring_modes = KDA_RING_LINEAR;
  // Not a region the cases are drawn in: what the backend claims of invalid rows (a
  // restriction's is ignored).
  InvalidRows invalid_rows = InvalidRows::None;

  // The declared envelope of a plugin of `op`: for an operator without rings the ring dtypes
  // and l_max mean nothing (they are not ways out of it).
  static Envelope from_c(const kda_envelope& e, const OperatorDescription& op);
  // A plugin's (read_plugin_description's copy): its envelope and what it declares of invalid rows.
  static Envelope of_plugin(const kda_plugin& p);
  // "" when the config lies inside, else the first reason it does not ("state dtype bfloat16").
  std::string excludes(const CaseConfig& c) const;
  // The config moved inside: each dtype outside its set replaced by one inside (chosen by
  // the config's seed, so fitting keeps the variety), K, V and L clamped, envelope layouts
  // off for compact-only backends. nullopt when no config fits (an empty dtype set).
  std::optional<CaseConfig> fit(CaseConfig c) const;
  // Configs just outside the envelope, one per way out it has (a dtype it lacks, K or V
  // beyond its range, a strided layout for a compact-only backend, a ring variant it does not
  // serve), each otherwise valid (a variant the operator lacks is fitted away by its fit_case).
  std::vector<CaseConfig> just_outside(const CaseConfig& inside) const;
  // One line: "act {f32,bf16,f16} state {...} ... K 16..256 V 1..256 L<=64 strided cpu".
  std::string describe() const;
  // The same in the operator's words (engine/description/operator_words.hpp): no ring dtypes, L or ring
  // variants for an operator without a ring.
  std::string describe(const OperatorDescription& op) const;

 private:
  std::string describe_with(bool ring, uint32_t variants) const;

 public:
};

uint32_t dtype_bit(ScalarType t);

}  // namespace kda::engine
