#include "bench/bench_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace kda::bench {
namespace {

const char* dtype(ScalarType t) { return t == ScalarType::Float32 ? "f32" : t == ScalarType::BFloat16 ? "bf16" : "f16"; }

std::string stats_text(const Stats& s) { return fmt::format("{:9.2f} [{:.2f}-{:.2f}]", s.median_us, s.p10_us, s.p90_us); }

}  // namespace

const Measurement* find_measurement(const std::vector<Measurement>& all, int64_t H, int64_t HV, int64_t B, int64_t L,
                                    ScalarType st, StepKind k) {
  for (const Measurement& m : all)
    if (m.c.H == H && m.c.HV == HV && m.c.B == B && m.c.L == L && m.c.state == st && m.kind == k) return &m;
  return nullptr;
}

double CopyResult::gbps() const {
  const double best = std::min(start.samples ? start.median_us : 1e300, end.samples ? end.median_us : 1e300);
  return best >= 1e300 ? 0.0 : 2.0 * static_cast<double>(bytes) / (best * 1e3);
}

std::vector<Saving> savings(const std::vector<Measurement>& all) {
  std::vector<Saving> out;
  for (const Measurement& m : all) {
    if (m.kind != StepKind::Cycle) continue;
    const Measurement* plain = find_measurement(all, m.c.H, m.c.HV, m.c.B, 1, m.c.state, StepKind::Plain);
    if (plain == nullptr) continue;
    Saving s;
    s.c = m.c;
    s.time_ratio = m.time_us() / plain->time_us();
    s.model_ratio = m.bytes.total() / plain->bytes.total();
    out.push_back(s);
  }
  return out;
}

void print_header(std::FILE* f) {
  fmt::print(f, "{:<24} {:<6} {:>3} {:>4} {:>9} {:>29} {:>29} {:>7} {:>6}\n", "case", "kind", "cur", "sets", "MB/step",
             "eager us [p10-p90]", "graph us [p10-p90]", "GB/s", "%copy");
}

void print_rows(std::FILE* f, const std::vector<Measurement>& rows, double copy_gbps) {
  for (const Measurement& m : rows) {
    fmt::print(f, "{:<24} {:<6} {:>3} {:>4} {:>9.2f} {:>29} {:>29} {:>7.0f} {:>5.1f}%\n", m.c.label(), kind_name(m.kind),
               m.cursor, m.sets, m.bytes.total() / 1e6, stats_text(m.eager), m.graph ? stats_text(*m.graph) : "-",
               m.gbps(), copy_gbps > 0 ? 100.0 * m.gbps() / copy_gbps : 0.0);
  }
  std::fflush(f);
}

void write_csv(const std::string& path, const std::vector<Measurement>& all, double copy_gbps) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write " + path);
  f << "H,HV,K,V,B,L,state,kind,cursor,sets,read_bytes,write_bytes,eager_median_us,eager_p10_us,eager_p90_us,"
       "eager_samples,eager_host_us,graph_median_us,graph_p10_us,graph_p90_us,graph_samples,graph_host_us,time_us,gbps,"
       "copy_gbps,frac_of_copy,op\n";
  for (const Measurement& m : all) {
    f << fmt::format("{},{},{},{},{},{},{},{},{},{},{:.0f},{:.0f},{:.3f},{:.3f},{:.3f},{},{:.3f},", m.c.H, m.c.HV, m.c.K,
                     m.c.V, m.c.B, m.c.L, dtype(m.c.state), kind_name(m.kind), m.cursor, m.sets, m.bytes.read,
                     m.bytes.write, m.eager.median_us, m.eager.p10_us, m.eager.p90_us, m.eager.samples,
                     m.eager.host_enqueue_us);
    if (m.graph)
      f << fmt::format("{:.3f},{:.3f},{:.3f},{},{:.3f},", m.graph->median_us, m.graph->p10_us, m.graph->p90_us,
                       m.graph->samples, m.graph->host_enqueue_us);
    else
      f << ",,,,,";
    f << fmt::format("{:.3f},{:.1f},{:.1f},", m.time_us(), m.gbps(), copy_gbps);
    f << (copy_gbps > 0 ? fmt::format("{:.4f}", m.gbps() / copy_gbps) : std::string());
    f << "," << m.c.op.name << "\n";
  }
}

nlohmann::json to_json(const DeviceInfo& dev, const CopyResult& copy, const std::vector<Measurement>& all) {
  using nlohmann::json;
  auto stats = [](const Stats& s) {
    return json{{"median_us", s.median_us}, {"p10_us", s.p10_us},     {"p90_us", s.p90_us},
                {"samples", s.samples},     {"host_enqueue_us", s.host_enqueue_us}};
  };
  json j;
  j["device"] = {{"name", dev.name}, {"sms", dev.sms}, {"l2_bytes", dev.l2_bytes}};
  j["copy"] = {{"bytes", copy.bytes}, {"start", stats(copy.start)}, {"end", stats(copy.end)}, {"gbps", copy.gbps()}};
  json rows = json::array();
  for (const Measurement& m : all) {
    json r = {{"H", m.c.H}, {"HV", m.c.HV}, {"K", m.c.K}, {"V", m.c.V}, {"B", m.c.B}, {"L", m.c.L},
              {"state", dtype(m.c.state)}, {"kind", kind_name(m.kind)}, {"cursor", m.cursor}, {"sets", m.sets},
              {"read_bytes", m.bytes.read}, {"write_bytes", m.bytes.write}, {"eager", stats(m.eager)},
              {"time_us", m.time_us()}, {"gbps", m.gbps()}, {"op", m.c.op.name}};
    if (copy.gbps() > 0) r["frac_of_copy"] = m.gbps() / copy.gbps();
    if (m.graph) r["graph"] = stats(*m.graph);
    rows.push_back(r);
  }
  j["measurements"] = rows;
  json sv = json::array();
  for (const Saving& s : savings(all))
    sv.push_back({{"case", s.c.label()}, {"time_ratio", s.time_ratio}, {"model_ratio", s.model_ratio}, {"excess", s.excess()}});
  j["savings"] = sv;
  return j;
}

}  // namespace kda::bench
