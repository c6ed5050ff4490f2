// A backend's envelope: the dtypes of each argument, the K, V and L it takes, whether it
// takes strided tensors, and the device its tensors live on (plugin.h's kda_envelope, in
// C++). The engine samples cases inside it (fit) and builds calls just outside it (to check
// that the backend refuses them cleanly).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cases/case_config.hpp"
#include "kda_harness/plugin.h"

namespace kda::engine {

struct OperatorDescription;

enum class Device { Cpu, Cuda };

struct Envelope {
  uint32_t act_dtypes = KDA_DT_ALL_FLOATS;
  uint32_t state_dtypes = KDA_DT_ALL_FLOATS;
  uint32_t ring_dtypes = KDA_DT_ALL_FLOATS;
  uint32_t out_dtypes = KDA_DT_ALL_FLOATS;
  uint32_t index_dtypes = KDA_DT_ALL_INDICES;
  // Index dtypes the operator's cases never have (its fit_case replaces them: gdn_replayssm's
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

  // The declared envelope of a plugin of `op`: for an operator without rings the ring dtypes
  // and l_max mean nothing (they are not ways out of it).
  static Envelope from_c(const kda_envelope& e, const OperatorDescription& op);
  // "" when the config lies inside, else the first reason it does not ("state dtype bfloat16").
  std::string excludes(const CaseConfig& c) const;
  // The config moved inside: each dtype outside its set replaced by one inside (chosen by
  // the config's seed, so fitting keeps the variety), K, V and L clamped, envelope layouts
  // off for compact-only backends. nullopt when no config fits (an empty dtype set).
  std::optional<CaseConfig> fit(CaseConfig c) const;
  // Configs just outside the envelope, one per way out it has (a dtype it lacks, K or V
  // beyond its range, a strided layout for a compact-only backend), each otherwise valid.
  std::vector<CaseConfig> just_outside(const CaseConfig& inside) const;
  // One line: "act {f32,bf16,f16} state {...} ... K 16..256 V 1..256 L<=64 strided cpu".
  std::string describe() const;
};

uint32_t dtype_bit(ScalarType t);

}  // namespace kda::engine
