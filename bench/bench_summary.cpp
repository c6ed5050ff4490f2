// print_summary (bench_report.hpp): issue 7's peer table, targets, savings and small-batch
// launch overheads, from the measurements of one run.
#include <fmt/format.h>

#include <functional>

#include "bench/bench_report.hpp"

namespace kda::bench {
namespace {

const char* dtype(ScalarType t) { return t == ScalarType::Float32 ? "f32" : "bf16"; }

// The peer of issue 7: SGLang's Triton ReplaySSM kernel on the H200 (H = HV = 32, K = V =
// 128, measured 2026-11-29, copy bandwidth 4.27 TB/s in that run), microseconds per step.
struct Peer {
  ScalarType state;
  int64_t L, B;
  StepKind kind;
  double us;
};
const Peer kPeer[] = {
    {ScalarType::Float32, 8, 256, StepKind::Append, 348},   {ScalarType::Float32, 8, 256, StepKind::Flush, 741},
    {ScalarType::Float32, 8, 1024, StepKind::Append, 1322}, {ScalarType::Float32, 1, 256, StepKind::Plain, 696},
    {ScalarType::BFloat16, 8, 256, StepKind::Append, 212},  {ScalarType::BFloat16, 8, 256, StepKind::Flush, 436},
    {ScalarType::BFloat16, 8, 1024, StepKind::Append, 813}, {ScalarType::BFloat16, 1, 256, StepKind::Plain, 432},
    {ScalarType::Float32, 64, 256, StepKind::Append, 2638}, {ScalarType::Float32, 64, 256, StepKind::Flush, 6626},
    {ScalarType::Float32, 64, 1024, StepKind::Append, 10492},
};

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

void target_line(std::FILE* f, const char* what, const Measurement* w, double got, double limit, bool at_least,
                 const char* unit) {
  if (w == nullptr) {
    fmt::print(f, "  {:<52} no data in this run\n", what);
    return;
  }
  const bool pass = at_least ? got >= limit : got <= limit;
  fmt::print(f, "  {:<52} worst {:7.2f}{} ({} {})  target {}{}{}  {}\n", what, got, unit, w->c.label(), kind_name(w->kind),
             at_least ? ">=" : "<=", limit, unit, pass ? "PASS" : "MISS");
}

}  // namespace

void print_summary(std::FILE* f, const CopyResult& copy, const std::vector<Measurement>& all) {
  const double bw = copy.gbps();
  auto pct = [bw](const Measurement& m) { return 100.0 * m.gbps() / bw; };
  fmt::print(f, "\n===== summary =====\n");
  fmt::print(f, "copy bandwidth {:.0f} GB/s ({:.2f} GB copied; medians {:.1f} us at start, {:.1f} us at end)\n", bw,
             copy.bytes / 1e9, copy.start.median_us, copy.end.median_us);

  fmt::print(f, "peer (SGLang Triton ReplaySSM, H=HV=32; its fractions are of 4.27 TB/s):\n");
  for (const Peer& p : kPeer) {
    const Measurement* m = find_measurement(all, 32, 32, p.B, p.L, p.state, p.kind);
    if (m == nullptr) continue;
    fmt::print(f, "  {:<4} L={:<2} B={:<4} {:<6} ours {:8.1f} us {:5.1f}%   peer {:7.0f} us   speedup {:.2f}x\n",
               dtype(p.state), p.L, p.B, kind_name(p.kind), m->time_us(), pct(*m), p.us, p.us / m->time_us());
  }

  fmt::print(f, "targets (fractions of the copy bandwidth):\n");
  auto big = [](const Measurement& m) { return m.c.B >= 256; };
  auto mid_l = [](const Measurement& m) { return m.c.L >= 4 && m.c.L <= 16; };
  const Measurement* w = worst(all, [&](const Measurement& m) { return big(m) && mid_l(m) && m.kind == StepKind::Append; }, pct, true);
  target_line(f, "append, B>=256, L 4..16, both states", w, w ? pct(*w) : 0, 85, true, "%");
  w = worst(all, [&](const Measurement& m) { return big(m) && mid_l(m) && m.kind == StepKind::Flush; }, pct, true);
  target_line(f, "flush, B>=256, L 4..16, both states", w, w ? pct(*w) : 0, 80, true, "%");
  w = worst(all, [&](const Measurement& m) {
    return big(m) && m.c.L == 64 && (m.kind == StepKind::Append || m.kind == StepKind::Flush);
  }, pct, true);
  target_line(f, "append and flush, B>=256, L=64", w, w ? pct(*w) : 0, 60, true, "%");
  auto graph_us = [](const Measurement& m) { return m.graph ? m.graph->median_us : 0.0; };
  w = worst(all, [](const Measurement& m) { return m.c.B == 1 && m.graph.has_value(); }, graph_us, false);
  target_line(f, "B=1 with a CUDA graph, per step", w, w ? graph_us(*w) : 0, 8, false, " us");

  const std::vector<Saving> sv = savings(all);
  fmt::print(f, "saving (cycle per token / plain decode; target: excess = time/model <= 1.1 at B=256, L 4..16):\n");
  const Saving* worst_saving = nullptr;
  for (const Saving& s : sv) {
    fmt::print(f, "  {:<24} time {:.3f}  model {:.3f}  excess {:.3f}\n", s.c.label(), s.time_ratio, s.model_ratio, s.excess());
    if (s.c.B == 256 && s.c.L >= 4 && s.c.L <= 16 && (worst_saving == nullptr || s.excess() > worst_saving->excess()))
      worst_saving = &s;
  }
  if (worst_saving == nullptr)
    fmt::print(f, "  {:<52} no data in this run\n", "saving, B=256, L 4..16");
  else
    fmt::print(f, "  {:<52} worst excess {:.3f} ({})  target <=1.1  {}\n", "saving, B=256, L 4..16", worst_saving->excess(),
               worst_saving->c.label(), worst_saving->excess() <= 1.1 ? "PASS" : "MISS");

  fmt::print(f, "small batches (us per step: medians eager, graph, eager - graph; host time per step in the enqueue "
                "calls, eager and graph):\n");
  for (const Measurement& m : all) {
    if (m.c.B > 8 || !m.graph) continue;
    fmt::print(f, "  {:<24} {:<6} eager {:7.2f}  graph {:7.2f}  overhead {:6.2f}  host eager {:5.2f} graph {:5.2f}\n",
               m.c.label(), kind_name(m.kind), m.eager.median_us, m.graph->median_us,
               m.eager.median_us - m.graph->median_us, m.eager.host_enqueue_us, m.graph->host_enqueue_us);
  }
  std::fflush(f);
}

}  // namespace kda::bench
