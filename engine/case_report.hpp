// The one report of a case run on a backend, whatever it was judged against (the CPU
// reference step by step, or the float64 plain recurrence): each quantity's worst
// comparison, labelled with the tensor, index, row and step it came from; the first
// non-numeric failure (row status, footprint, guards, a refusal that should not have
// happened); and the command line that replays it.
#pragma once
#include <cstdint>
#include <string>

#include "cases/case_config.hpp"
#include "reference/compare.hpp"

namespace kda::engine {

struct CaseReport {
  CaseConfig config;
  std::string backend;        // the backend's name: "reference", "cuda:0", "plugin:cpu-example"
  std::string backend_spec;   // what make_backend() takes to make it again: "plugin:/path/lib.so"
  std::string against;        // "reference" or "truth"
  std::string op = "kda_replayssm";  // the operator the backend implements
  int64_t tokens = 0, flushes = 0, appends = 0, rejected_rows = 0;
  double max_gate_mass = 0;   // the largest gate mass G the bounds were taken at
  reference::Comparison out, state, d_ring, k_ring, g_ring;
  std::string failure;        // "" if none

  bool pass() const;
  // The comparison with the largest error / tolerance (NaN first); nullptr when none compared.
  const reference::Comparison* worst() const;
  // `kda-harness case "<config>" --backend <backend> --against <against>`.
  std::string replay() const;
  // Several lines: the config, the counts, each quantity, the failure (replay() apart).
  std::string summary() const;
  // The failure in one line: the non-numeric failure if any, else the worst failing
  // comparison, prefixed by its tensor's name ("k_cache: worst ... at k_cache[...] (...)").
  std::string headline() const;
};

}  // namespace kda::engine
