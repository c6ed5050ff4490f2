// The one report of a case run on a backend, whatever judged it (the CPU reference step by
// step, the float64 plain recurrence, a golden file's expected tensors, or the contract):
// each quantity's worst comparison, labelled with the tensor, index, row and step it came
// from; the first non-numeric failure (row status, footprint, guards, a refusal that should
// not have happened, the wrong error); and the command line that replays it.
#pragma once
#include <cstdint>
#include <string>

#include "cases/case_config.hpp"
#include "reference/compare.hpp"

namespace kda::engine {

struct CaseReport {
  CaseConfig config;
  std::string name;           // a golden case's name; "" for a drawn config
  std::string backend;        // the backend's name: "reference", "cuda:0", "plugin:cpu-example"
  std::string backend_spec;   // what make_backend() takes to make it again: "plugin:/path/lib.so"
  // "reference", "truth", "expected" (a golden file's results), "model" (a golden file
  // without them: the float64 ReplaySSM model), "error" (a golden error case), "contract".
  std::string against;
  std::string op;               // the operator the backend implements; "": the default (default_operator())
  std::string replay_line;    // how to replay it, where not `kda-harness case "<config>" ...`
  std::string what;           // a case that ran nothing (a contract case: its call), in one line
  std::string note;           // what was special about the case ("this case: row 2's cursor set to 4 ...")
  int64_t tokens = 0, flushes = 0, appends = 0, rejected_rows = 0;
  double max_gate_mass = 0;     // the largest gate mass G the bounds were taken at
  double max_cancellation = 1;  // the largest (sum of the parts' norms) / ||state|| the budget saw
  reference::Comparison out, state, d_ring, k_ring, g_ring;
  // Golden cases: elements no step may write that differ from the expected bytes at the end,
  // tensors reproduced bit for bit.
  int64_t untouched_changed = 0, tensors_compared = 0, tensors_bit_exact = 0;
  std::string error_seen;        // an error case: "ID: message" the backend raised
  std::string outside_envelope;  // why the case lies outside the backend's envelope (then it must be refused)
  std::string failure;           // "" if none
  std::string shrunk;            // the replay of a smaller config that still fails (check's shrinking), if one was found

  bool pass() const;
  // The comparison with the largest error / tolerance (NaN first); nullptr when none compared.
  const reference::Comparison* worst() const;
  // replay_line, or `kda-harness case "<config>" --backend <backend> --against <against>`.
  std::string replay() const;
  // "tokens 9", or "tokens 1 of 9 (stopped at the first failing token)": the tokens the case
  // ran of its config's steps.
  std::string tokens_run() const;
  // ", flushes F, appends A" for an operator with a ring (engine/description/operator_words.hpp), "" without.
  std::string ring_counts() const;
  // Several lines: the case, the counts, each quantity, the failure (replay() apart).
  std::string summary() const;
  // The failure in one line: the non-numeric failure if any, else the worst failing
  // comparison, prefixed by its tensor's name ("k_cache: Mismatched blocks: ... at k_cache[...] (...)"),
  // and by the golden case's name.
  std::string headline() const;

 private:
  std::string failure_line() const;  // headline() without the note
};

}  // namespace kda::engine
