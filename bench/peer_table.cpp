#include "bench/peer_table.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace kda::bench {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// The cells of a markdown table line "| a | b |", or nothing for a line that is no row.
std::vector<std::string> cells(const std::string& line) {
  const std::string t = trim(line);
  if (t.size() < 2 || t.front() != '|') return {};
  std::vector<std::string> out;
  std::size_t at = 1;
  for (std::size_t bar; (bar = t.find('|', at)) != std::string::npos; at = bar + 1) out.push_back(trim(t.substr(at, bar - at)));
  return out;
}

}  // namespace

std::vector<PeerRow> parse_peer_table(std::istream& in, const std::string& time_column) {
  std::vector<PeerRow> rows;
  int heads = -1, state = -1, len = -1, batch = -1, kind = -1, time = -1;
  std::string line;
  while (std::getline(in, line)) {
    const std::vector<std::string> c = cells(line);
    if (c.empty()) {
      if (time >= 0 && !rows.empty()) break;  // the end of the table
      continue;
    }
    if (time < 0) {  // looking for the header
      int f[6] = {-1, -1, -1, -1, -1, -1};
      const char* names[5] = {"H/HV", "state", "L", "B", "kind"};
      for (int i = 0; i < static_cast<int>(c.size()); ++i) {
        for (int n = 0; n < 5; ++n)
          if (c[i] == names[n]) f[n] = i;
        if (c[i] == time_column) f[5] = i;
      }
      if (f[0] >= 0 && f[1] >= 0 && f[2] >= 0 && f[3] >= 0 && f[4] >= 0 && f[5] >= 0)
        heads = f[0], state = f[1], len = f[2], batch = f[3], kind = f[4], time = f[5];
      continue;
    }
    const int need = std::max({heads, state, len, batch, kind, time});
    if (static_cast<int>(c.size()) <= need) continue;
    try {
      PeerRow r;
      const std::string& hh = c[heads];
      const auto slash = hh.find('/');
      if (slash == std::string::npos) continue;
      r.H = std::stoll(hh.substr(0, slash));
      r.HV = std::stoll(hh.substr(slash + 1));
      r.state = c[state];
      r.L = std::stoll(c[len]);
      r.B = std::stoll(c[batch]);
      r.kind = c[kind];
      std::size_t used = 0;
      r.us = std::stod(c[time], &used);
      if (used == 0 || !(r.us > 0)) continue;
      rows.push_back(r);
    } catch (const std::exception&) {  // the separator line "|---|" and any other non-number
      continue;
    }
  }
  return rows;
}

std::vector<PeerRow> read_peer_table(const std::string& path, const std::string& time_column) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read the peer table " + path);
  std::vector<PeerRow> rows = parse_peer_table(f, time_column);
  if (rows.empty()) throw std::runtime_error("no row with a '" + time_column + "' column in " + path);
  return rows;
}

std::optional<PeerRow> find_peer(const std::vector<PeerRow>& rows, int64_t H, int64_t HV, int64_t L, int64_t B,
                                 const std::string& state, const std::string& kind) {
  for (const PeerRow& r : rows)
    if (r.H == H && r.HV == HV && r.L == L && r.B == B && r.state == state && r.kind == kind) return r;
  return std::nullopt;
}

}  // namespace kda::bench
