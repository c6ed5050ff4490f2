// print_summary (bench_report.hpp): the targets, the saving against the plain decode, the
// small-batch launch overheads, and (when given) a peer's times recorded in another run, all
// from the measurements of this run.
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <functional>

#include "bench/bench_report.hpp"
#include "engine/backends/cuda_kernel.hpp"

namespace kda::bench {
namespace {

const char* dtype(ScalarType t) { return t == ScalarType::Float32 ? "f32" : t == ScalarType::BFloat16 ? "bf16" : "f16"; }

// The worst measurement among those `pick` selects, by `value` (lower is worse when
// `low_is_bad`); null when none was measured.
const Measurement* worst(const std::vector<Measurement>& all, const std::function<bool(const Measurement&)>& pick,
                         const std::function<double(const Measurement&)>& value, bool low_is_bad) {
  const Measurement* w = nullptr;
  for (const Measurement& m : all) {
    if (!pick(m)) continue;
    if (w == nullptr || (low_is_bad ? value(m) < value(*w) : value(m) > value(*w))) w = &m;
  }
  return w;
}

void target_line(std::FILE* f, const std::string& what, const Measurement* w, double got, double limit, bool at_least,
                 const char* unit) {
  if (w == nullptr) {
    fmt::print(f, "  {:<56} no data in this run\n", what);
    return;
  }
  const bool pass = at_least ? got >= limit : got <= limit;
  fmt::print(f, "  {:<56} worst {:7.2f}{} ({} {})  target {}{}{}  {}\n", what, got, unit, w->c.label(), kind_name(w->kind),
             at_least ? ">=" : "<=", limit, unit, pass ? "PASS" : "MISS");
}

bool big(const Measurement& m) { return m.c.B >= 256; }
bool mid_l(const Measurement& m) { return m.c.L >= 4 && m.c.L <= 16; }

// Recorded peer times beside this run's: a per-row line, the count of rows where this run is
// slower, and peer_comparison.csv under out_dir.
void print_peer(std::FILE* f, const PeerRecord& peer, const std::vector<Measurement>& all, const std::string& out_dir) {
  fmt::print(f, "peer times RECORDED ELSEWHERE (not measured in this run), from {}:\n", peer.path);
  std::ofstream csv(out_dir + "/peer_comparison.csv");
  csv << "H,HV,state,L,B,kind,ours_us,peer_recorded_us,peer_over_ours\n";
  int rows = 0, slower = 0;
  double log_sum = 0;
  const Measurement* worst_row = nullptr;
  double worst_ratio = 0;
  for (const Measurement& m : all) {
    // The record holds the rows of the operators whose row of the table of launchers says so.
    if (const engine::CudaKernel* k = engine::cuda_kernel_of(m.c.op.name); k == nullptr || !k->peer_recorded) continue;
    const auto p = find_peer(peer.rows, m.c.H, m.c.HV, m.c.L, m.c.B, dtype(m.c.state), kind_name(m.kind));
    if (!p) continue;
    const double ratio = p->us / m.time_us();  // > 1: this run's time is under the recorded one
    ++rows;
    log_sum += std::log(ratio);
    if (ratio < 1) ++slower;
    if (worst_row == nullptr || ratio < worst_ratio) worst_row = &m, worst_ratio = ratio;
    fmt::print(f, "  {:<24} {:<6} ours {:9.1f} us   peer (recorded) {:9.1f} us   recorded/ours {:.2f}x{}\n", m.c.label(),
               kind_name(m.kind), m.time_us(), p->us, ratio, ratio < 1 ? "  SLOWER" : "");
    csv << fmt::format("{},{},{},{},{},{},{:.3f},{:.3f},{:.4f}\n", m.c.H, m.c.HV, dtype(m.c.state), m.c.L, m.c.B,
                       kind_name(m.kind), m.time_us(), p->us, ratio);
  }
  if (rows == 0) {
    fmt::print(f, "  no measured row has a recorded peer row\n");
    return;
  }
  fmt::print(f, "  {} rows: geometric mean recorded/ours {:.3f}x, worst {:.2f}x ({} {}); slower than the record in {}"
                " rows  target: none slower  {}\n",
             rows, std::exp(log_sum / rows), worst_ratio, worst_row->c.label(), kind_name(worst_row->kind), slower,
             slower == 0 ? "PASS (against the record)" : "MISS (against the record)");
}

}  // namespace

void print_summary(std::FILE* f, const CopyResult& copy, const std::vector<Measurement>& all, const PeerRecord* peer,
                   const std::string& out_dir) {
  const double bw = copy.gbps();
  auto pct = [bw](const Measurement& m) { return 100.0 * m.gbps() / bw; };
  fmt::print(f, "\n===== summary =====\n");
  fmt::print(f, "copy bandwidth {:.0f} GB/s ({:.2f} GB copied; medians {:.1f} us at start, {:.1f} us at end)\n", bw,
             copy.bytes / 1e9, copy.start.median_us, copy.end.median_us);

  fmt::print(f, "targets (fractions of the copy bandwidth of this run):\n");
  for (ScalarType st : {ScalarType::Float32, ScalarType::BFloat16}) {
    const Measurement* w = worst(all, [&](const Measurement& m) {
      return big(m) && mid_l(m) && m.kind == StepKind::Append && m.c.state == st;
    }, pct, true);
    target_line(f, fmt::format("append, B>=256, L 4..16, {} state", dtype(st)), w, w ? pct(*w) : 0, 80, true, "%");
  }
  const Measurement* w = worst(all, [](const Measurement& m) { return big(m) && mid_l(m) && m.kind == StepKind::Flush; }, pct, true);
  target_line(f, "flush, B>=256, L 4..16, both states", w, w ? pct(*w) : 0, 80, true, "%");
  w = worst(all, [](const Measurement& m) {
    return big(m) && m.c.L == 64 && (m.kind == StepKind::Append || m.kind == StepKind::Flush);
  }, pct, true);
  target_line(f, "append and flush, B>=256, L=64", w, w ? pct(*w) : 0, 50, true, "%");
  // bfloat16 append time over the float32 one of the same heads, B and L.
  auto bf16_over_f32 = [&all](const Measurement& m) {
    const Measurement* f32 = find_measurement(all, m.c.H, m.c.HV, m.c.B, m.c.L, ScalarType::Float32, StepKind::Append);
    return f32 ? m.time_us() / f32->time_us() : 0.0;
  };
  w = worst(all, [&](const Measurement& m) {
    return big(m) && mid_l(m) && m.kind == StepKind::Append && m.c.state == ScalarType::BFloat16 && bf16_over_f32(m) > 0;
  }, bf16_over_f32, false);
  target_line(f, "bf16 append time / f32 append time, B>=256, L 4..16", w, w ? bf16_over_f32(*w) : 0, 0.6, false, "x");
  auto graph_us = [](const Measurement& m) { return m.graph ? m.graph->median_us : 0.0; };
  w = worst(all, [](const Measurement& m) { return m.c.B == 1 && m.c.L <= 16 && m.graph.has_value(); }, graph_us, false);
  target_line(f, "B=1 with a CUDA graph, per step, L <= 16", w, w ? graph_us(*w) : 0, 8, false, " us");

  const std::vector<Saving> sv = savings(all);
  fmt::print(f, "saving (cycle per token / plain decode; target: excess = time/model <= 1.1 at B=256, L 4..16):\n");
  const Saving* worst_saving = nullptr;
  for (const Saving& s : sv) {
    fmt::print(f, "  {:<24} time {:.3f}  model {:.3f}  excess {:.3f}\n", s.c.label(), s.time_ratio, s.model_ratio, s.excess());
    if (s.c.B == 256 && s.c.L >= 4 && s.c.L <= 16 && (worst_saving == nullptr || s.excess() > worst_saving->excess()))
      worst_saving = &s;
  }
  if (worst_saving == nullptr)
    fmt::print(f, "  {:<56} no data in this run\n", "saving, B=256, L 4..16");
  else
    fmt::print(f, "  {:<56} worst excess {:.3f} ({})  target <=1.1  {}\n", "saving, B=256, L 4..16", worst_saving->excess(),
               worst_saving->c.label(), worst_saving->excess() <= 1.1 ? "PASS" : "MISS");

  fmt::print(f, "small batches (us per step: medians eager, graph, eager - graph; host time per step in the enqueue "
                "calls, eager and graph):\n");
  for (const Measurement& m : all) {
    if (m.c.B > 8 || !m.graph) continue;
    fmt::print(f, "  {:<24} {:<6} eager {:7.2f}  graph {:7.2f}  overhead {:6.2f}  host eager {:5.2f} graph {:5.2f}\n",
               m.c.label(), kind_name(m.kind), m.eager.median_us, m.graph->median_us,
               m.eager.median_us - m.graph->median_us, m.eager.host_enqueue_us, m.graph->host_enqueue_us);
  }
  if (peer != nullptr) print_peer(f, *peer, all, out_dir);
  std::fflush(f);
}

}  // namespace kda::bench
