// The benchmark's outputs: the terminal table (one line per measurement, printed as each
// case finishes), CSV and JSON files, and the derived figures: the targets, the ReplaySSM
// saving against the plain decode, the launch overhead of small batches and, when a file of
// recorded peer times is given, those times beside this run's, printed as a summary last.
#pragma once
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_runner.hpp"
#include "bench/peer_table.hpp"

namespace kda::bench {

struct DeviceInfo {
  std::string name;
  int sms = 0;
  int64_t l2_bytes = 0;
};

struct CopyResult {
  std::size_t bytes = 0;   // copied each time (read + written = 2 * bytes)
  Stats start, end;        // measured before and after the sweep
  // Practical bandwidth in GB/s: the better of the two medians (the fractions are then
  // conservative).
  double gbps() const;
};

// The measurement of that case and kind, or null.
const Measurement* find_measurement(const std::vector<Measurement>& all, int64_t H, int64_t HV, int64_t B, int64_t L,
                                    ScalarType st, StepKind k);

// Per-token cycle average at L over the plain decode (L = 1) of the same heads, B, state.
struct Saving {
  BenchCase c;  // the L > 1 case
  double time_ratio = 0, model_ratio = 0;
  double excess() const { return time_ratio / model_ratio; }  // target <= 1.1
};
std::vector<Saving> savings(const std::vector<Measurement>& all);

void print_header(std::FILE* f);
void print_rows(std::FILE* f, const std::vector<Measurement>& rows, double copy_gbps);
void write_csv(const std::string& path, const std::vector<Measurement>& all, double copy_gbps);
nlohmann::json to_json(const DeviceInfo& dev, const CopyResult& copy, const std::vector<Measurement>& all);
// A peer's times from another run (read_peer_table) and the file they came from.
struct PeerRecord {
  std::string path;
  std::vector<PeerRow> rows;
};

// Targets, savings, launch overheads and, with `peer`, the recorded peer times beside this
// run's (also written to out_dir/peer_comparison.csv); lines that have no data say so.
void print_summary(std::FILE* f, const CopyResult& copy, const std::vector<Measurement>& all, const PeerRecord* peer,
                   const std::string& out_dir);

}  // namespace kda::bench
