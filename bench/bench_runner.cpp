#include "bench/bench_runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/backends/cuda_kernel.hpp"

namespace kda::bench {

std::string kind_name(StepKind k) {
  switch (k) {
    case StepKind::Append: return "append";
    case StepKind::Flush: return "flush";
    case StepKind::Cycle: return "cycle";
    case StepKind::Plain: return "plain";
    case StepKind::PackedDecode: return "packed";
  }
  return "?";
}

namespace {

// What one timed unit enqueues: one step at a fixed cursor, or a whole cycle, of an
// operator's launcher (the case's, or the one its row of the table times beside it).
struct Pattern {
  StepKind kind;
  int64_t cursor;       // fixed cursor (append/flush/plain)
  bool forced;          // force_flush all-one
  int64_t steps;        // steps per unit: 1, or L for a cycle
  const engine::CudaKernel* kernel;
};

// The launcher of the operator of that name; std::invalid_argument where our kernel serves none.
const engine::CudaKernel& kernel_of(std::string_view op) {
  const engine::CudaKernel* k = engine::cuda_kernel_of(op);
  if (k == nullptr) throw std::invalid_argument("our CUDA kernel does not serve " + std::string(op));
  return *k;
}

Enqueue enqueue_for(const BenchCase& c, Workspace& ws, const Pattern& p) {
  // Every launch takes the next input set, inside a cycle too: a cycle on one set would find
  // a small batch's state in L2 from the launch before.
  const auto step = p.kernel->launch;
  return [&c, &ws, p, step](int64_t i, cudaStream_t s) {
    if (p.kind == StepKind::PackedDecode) {
      step(ws.args(i % ws.sets(), 0, false), s, nullptr);
    } else if (p.kind == StepKind::Cycle) {
      for (int64_t cur = 0; cur < c.L; ++cur) step(ws.args((i * c.L + cur) % ws.sets(), cur, false), s, nullptr);
    } else {
      step(ws.args(i % ws.sets(), p.cursor, p.forced), s, nullptr);
    }
  };
}

Measurement measure(const BenchCase& c, Workspace& ws, const RunOptions& o, const Pattern& p, cudaStream_t stream) {
  Measurement m;
  m.c = c;
  m.kind = p.kind;
  m.cursor = p.kind == StepKind::Cycle ? -1 : p.cursor;
  m.sets = ws.sets();
  const ModelShape shape = c.model();
  m.bytes = p.kind == StepKind::Cycle ? cycle_average_bytes(shape, c.B)
                                      : uniform_step_bytes(shape, c.B, p.cursor, p.forced || p.cursor == c.L - 1);
  TimingPlan plan = o.plan;
  if (o.profile) {
    plan.warmup = 2;
    plan.min_samples = plan.max_samples = 1;
  } else if (p.kind == StepKind::Cycle) {
    plan.warmup = std::max<int64_t>(1, (plan.warmup + c.L - 1) / c.L);
    plan.min_samples = std::max(o.cycle_min_samples, (plan.min_samples + c.L - 1) / c.L);
  }
  const Enqueue eager = enqueue_for(c, ws, p);
  m.eager = time_units(stream, eager, plan, p.steps);
  if (!o.profile && c.B <= o.graph_max_batch) {
    const GraphSet graphs(stream, ws.sets(), eager);
    m.graph = time_units(stream, [&graphs](int64_t i, cudaStream_t s) { graphs.launch(i, s); }, plan, p.steps);
  }
  return m;
}

}  // namespace

std::vector<Measurement> run_case(const BenchCase& c, Workspace& ws, const RunOptions& o, cudaStream_t stream) {
  const engine::CudaKernel* own = &kernel_of(c.op.name);
  std::vector<Measurement> out;
  if (c.L == 1) {
    if (o.flush || o.cycle || o.append) {
      if (c.op.ring_free) {
        out.push_back(measure(c, ws, o, {StepKind::PackedDecode, 0, false, 1, own}, stream));
      } else {
        out.push_back(measure(c, ws, o, {StepKind::Plain, 0, false, 1, own}, stream));
        if (!own->timed_beside.empty())
          out.push_back(measure(c, ws, o, {StepKind::PackedDecode, 0, false, 1, &kernel_of(own->timed_beside)}, stream));
      }
    }
    return out;
  }
  if (o.append) out.push_back(measure(c, ws, o, {StepKind::Append, append_cursor(c), false, 1, own}, stream));
  if (o.flush) out.push_back(measure(c, ws, o, {StepKind::Flush, c.L - 1, true, 1, own}, stream));
  if (o.cycle) out.push_back(measure(c, ws, o, {StepKind::Cycle, 0, false, c.L, own}, stream));
  return out;
}

int64_t count_nonfinite_out(const BenchCase& c, Workspace& ws) {
  if (c.out != ScalarType::BFloat16) throw std::invalid_argument("count_nonfinite_out: out must be bfloat16");
  const StepArgs a = ws.args(0, 0, false);
  const int64_t n = c.B * c.HV * c.V;
  std::vector<uint16_t> host(static_cast<std::size_t>(n));  // out is bfloat16
  check_cuda(cudaMemcpy(host.data(), a.out->data, host.size() * sizeof(uint16_t), cudaMemcpyDeviceToHost), "out download");
  int64_t bad = 0;
  for (uint16_t h : host) {
    const uint32_t bits = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    bad += std::isfinite(f) ? 0 : 1;
  }
  return bad;
}

}  // namespace kda::bench
