// A peer kernel's times recorded in another run (a markdown table such as
// ../shared/peer/triton-replayssm-h200.md), read at run time so that the benchmark can set
// them beside its own. They were NOT measured in this run: every line that shows them says
// so, and a speed claim against them holds only as far as two runs on one machine agree.
#pragma once
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

namespace kda::bench {

struct PeerRow {
  int64_t H = 0, HV = 0, L = 0, B = 0;
  std::string state;  // "f32", "bf16", "f16"
  std::string kind;   // "append", "flush", "cycle", "plain"
  double us = 0;      // the peer's time per step
};

// The rows of the first markdown table whose header names the columns "H/HV", "state", "L",
// "B", "kind" and `time_column` (e.g. "Triton us"); rows that do not parse are skipped.
std::vector<PeerRow> parse_peer_table(std::istream& in, const std::string& time_column);
// The same from a file; throws std::runtime_error when it cannot be read or holds no row.
std::vector<PeerRow> read_peer_table(const std::string& path, const std::string& time_column);

std::optional<PeerRow> find_peer(const std::vector<PeerRow>& rows, int64_t H, int64_t HV, int64_t L, int64_t B,
                                 const std::string& state, const std::string& kind);

}  // namespace kda::bench
