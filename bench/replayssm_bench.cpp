// replayssm_bench: the CUDA decode step of an operator of the harness's table (--op; KDA
// ReplaySSM by default) against the H200's memory bandwidth.
// Sweeps heads x state dtype x L x B, times append / flush / cycle steps (eager and CUDA
// graphs), measures a large device-to-device copy in the same run, prints a table as it
// goes and a summary last, and writes replayssm_bench.csv / .json under --out-dir. With
// --peer-table, a peer's times recorded in another run are read from that file and shown
// beside this run's, labelled as recorded elsewhere.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_report.hpp"
#include "bench/bench_runner.hpp"
#include "bench/bench_workspace.hpp"
#include "contract/host_tensor.hpp"
#include "engine/backends/cuda_kernel.hpp"
#include "engine/description/operator.hpp"
#include "kernels/device_tensor.hpp"

namespace kb = kda::bench;

namespace {

struct Options {
  std::vector<std::string> heads = {"32x32", "2x16"};
  std::vector<int64_t> batches = {1, 8, 64, 256, 1024};
  std::vector<int64_t> lengths = {1, 4, 8, 16, 64};
  std::vector<std::string> states = {"f32", "bf16"};
  std::vector<std::string> modes = {"append", "flush", "cycle"};
  std::string op = std::string(kda::engine::default_operator().name);  // the table's
  std::string ring = "bf16";         // d_cache and k_cache
  double copy_gib = 1.0;
  int64_t copy_reps = 20;
  double l2_multiple = 3.0;
  int64_t max_sets = 1024;
  std::string out_dir = ".";
  std::string peer_table;                  // markdown file of a peer's recorded times ("" = none)
  std::string peer_column = "Triton us";  // its column of times
  bool plan = false;        // list the cases, input sets and arena size; no GPU needed
  double plan_l2_mb = 60;   // the L2 size the plan assumes (the H200's)
};

// --plan: what a run would allocate and move, without a GPU.
void print_plan(const std::vector<kb::BenchCase>& cases, double rotate_bytes, int64_t max_sets) {
  std::size_t arena = 0;
  for (const kb::BenchCase& c : cases) {
    const int64_t sets = kb::sets_for(c, rotate_bytes, max_sets);
    const kb::Workspace ws(c, sets);
    const kb::ModelShape m = c.model();
    arena = std::max(arena, ws.bytes());
    fmt::print("{:<24} sets {:>4}  workspace {:8.1f} MB  MB/step: plain/append {:8.2f}  flush {:8.2f}  cycle {:8.2f}\n",
               c.label(), sets, ws.bytes() / 1e6,
               kb::uniform_step_bytes(m, c.B, kb::append_cursor(c), c.L == 1).total() / 1e6,
               kb::uniform_step_bytes(m, c.B, c.L - 1, true).total() / 1e6, kb::cycle_average_bytes(m, c.B).total() / 1e6);
  }
  fmt::print("largest workspace {:.2f} GB\n", arena / 1e9);
}

std::vector<kb::BenchCase> expand(const Options& o) {
  std::vector<kb::BenchCase> cases;
  const kb::BenchOperator* op = kb::bench_operator(o.op);
  if (op == nullptr) throw std::invalid_argument("--op: the benchmark cannot step " + o.op);
  if (kda::engine::cuda_kernel_of(o.op) == nullptr) throw std::invalid_argument("--op: our CUDA kernel does not serve " + o.op);
  // An operator without a ring has one step, the L = 1 one.
  const std::vector<int64_t> lengths = op->ring_free ? std::vector<int64_t>{1} : o.lengths;
  const auto ring = kda::parse_scalar_type(o.ring);
  if (!ring || !kda::is_floating(*ring)) throw std::invalid_argument("--ring: unknown dtype " + o.ring);
  for (const std::string& h : o.heads) {
    const auto x = h.find('x');
    if (x == std::string::npos) throw std::invalid_argument("--heads wants HxHV, got " + h);
    for (const std::string& s : o.states) {
      const auto st = kda::parse_scalar_type(s);
      if (!st || !kda::is_floating(*st)) throw std::invalid_argument("--state: unknown dtype " + s);
      for (int64_t L : lengths)
        for (int64_t B : o.batches) {
          kb::BenchCase c;
          c.H = std::stoll(h.substr(0, x));
          c.HV = std::stoll(h.substr(x + 1));
          c.B = B;
          c.L = L;
          c.state = *st;
          c.ring = *ring;
          c.op = *op;
          cases.push_back(c);
        }
    }
  }
  return cases;
}

std::vector<std::string> op_names() {
  std::vector<std::string> names;
  for (const kda::engine::OperatorDescription* d : kda::engine::operators()) names.emplace_back(d->name);
  return names;
}

// --op's help: the table's operators, and what each operator's row of the table of launchers
// times beside its own L = 1 step.
std::string op_help() {
  std::string help = "the operator stepped: " + kda::engine::operator_names() + " (default " + op_names().front();
  for (const kda::engine::OperatorDescription* d : kda::engine::operators())
    if (const kda::engine::CudaKernel* k = kda::engine::cuda_kernel_of(d->name); k && !k->timed_beside.empty())
      help += fmt::format("; at L = 1 a {} run times {} beside its own step, rows `packed`", d->name, k->timed_beside);
  return help + ")";
}

bool has(const std::vector<std::string>& v, const char* s) {
  for (const auto& x : v)
    if (x == s) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  kb::RunOptions run;
  CLI::App app{"ReplaySSM decode kernel benchmark"};
  app.add_option("--heads", o.heads, "head configs HxHV")->delimiter(',');
  app.add_option("--batch", o.batches, "batch sizes B")->delimiter(',');
  app.add_option("--L", o.lengths, "ring lengths L")->delimiter(',');
  app.add_option("--state", o.states, "state dtypes (f32, bf16, f16)")->delimiter(',');
  app.add_option("--op", o.op, op_help())->check(CLI::IsMember(op_names()));
  app.add_option("--ring", o.ring, "d_cache and k_cache dtype (f32, bf16, f16)");
  app.add_option("--modes", o.modes, "append, flush, cycle (L = 1 is always the plain decode)")->delimiter(',');
  app.add_option("--graph-max-batch", run.graph_max_batch, "time CUDA graph replays for B <= this");
  app.add_option("--warmup", run.plan.warmup, "warm-up launches");
  app.add_option("--min-samples", run.plan.min_samples, "timed launches, at least");
  app.add_option("--max-samples", run.plan.max_samples, "timed launches, at most");
  app.add_option("--target-seconds", run.plan.target_seconds, "device time per timed series");
  app.add_option("--cycle-min-samples", run.cycle_min_samples, "timed cycles, at least");
  app.add_option("--copy-gib", o.copy_gib, "size of the reference device-to-device copy (0: none)");
  app.add_option("--copy-reps", o.copy_reps, "timed copies");
  app.add_option("--l2-multiple", o.l2_multiple, "input sets rotate over at least this many L2 sizes");
  app.add_option("--max-sets", o.max_sets, "input sets, at most");
  app.add_option("--out-dir", o.out_dir, "where replayssm_bench.csv/.json go");
  app.add_option("--peer-table", o.peer_table,
                 "markdown table of a peer's times recorded elsewhere (e.g. ../shared/peer/triton-replayssm-h200.md)");
  app.add_option("--peer-column", o.peer_column, "the column of --peer-table that holds the peer's us per step");
  app.add_flag("--plan", o.plan, "print the cases, input sets and memory without running (no GPU)");
  app.add_option("--plan-l2-mb", o.plan_l2_mb, "L2 size assumed by --plan");
  app.add_flag("--profile", run.profile, "for ncu: 2 warm-up launches then 1 launch per kind, no graphs, no copy");
  CLI11_PARSE(app, argc, argv);
  run.append = has(o.modes, "append");
  run.flush = has(o.modes, "flush");
  run.cycle = has(o.modes, "cycle");
  if (run.profile) o.copy_gib = 0;

  try {
    if (o.plan) {
      print_plan(expand(o), o.l2_multiple * o.plan_l2_mb * 1e6, o.max_sets);
      return 0;
    }
    if (const kda::engine::CudaKernel* k = kda::engine::cuda_kernel_of(o.op); k && !k->peer_recorded && !o.peer_table.empty())
      throw std::invalid_argument("--peer-table: no peer figures exist for " + o.op);
    std::optional<kb::PeerRecord> peer;
    if (!o.peer_table.empty()) peer = kb::PeerRecord{o.peer_table, kb::read_peer_table(o.peer_table, o.peer_column)};
    cudaDeviceProp prop{};
    kb::check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    kb::DeviceInfo dev{prop.name, prop.multiProcessorCount, prop.l2CacheSize};
    fmt::print("device {} ({} SMs, L2 {:.0f} MB)\n", dev.name, dev.sms, dev.l2_bytes / 1e6);

    const std::vector<kb::BenchCase> cases = expand(o);
    const double rotate_bytes = o.l2_multiple * static_cast<double>(dev.l2_bytes);
    std::size_t arena_bytes = static_cast<std::size_t>(2 * o.copy_gib * (1ull << 30));
    for (const kb::BenchCase& c : cases)
      arena_bytes = std::max(arena_bytes, kb::Workspace(c, kb::sets_for(c, rotate_bytes, o.max_sets)).bytes());
    const int64_t arena_floats = static_cast<int64_t>((arena_bytes + 255) / 256 * 64);
    kda::cuda::DeviceTensor arena;
    {
      const kda::HostTensor zeros(kda::ScalarType::Float32, {arena_floats});  // DeviceTensor uploads a host image
      arena = kda::cuda::DeviceTensor(zeros);
    }
    auto* base = static_cast<std::byte*>(arena.dl().data);
    fmt::print("arena {:.2f} GB for {} cases\n", arena_bytes / 1e9, cases.size());

    cudaStream_t stream = nullptr;
    kb::check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    kb::CopyResult copy;
    copy.bytes = static_cast<std::size_t>(o.copy_gib * (1ull << 30));
    if (copy.bytes > 0) copy.start = kb::time_copy(base + copy.bytes, base, copy.bytes, stream, o.copy_reps);
    fmt::print("copy {:.2f} GB: median {:.1f} us -> {:.0f} GB/s (read + written)\n", copy.bytes / 1e9,
               copy.start.median_us, copy.gbps());
    fmt::print("time basis: graph median where graphs are timed (B <= {}), else eager median\n", run.graph_max_batch);
    kb::print_header(stdout);

    std::vector<kb::Measurement> all;
    const std::string csv = o.out_dir + "/replayssm_bench.csv";
    for (const kb::BenchCase& c : cases) {
      kb::Workspace ws(c, kb::sets_for(c, rotate_bytes, o.max_sets), base, arena_bytes);
      ws.fill(stream);
      kb::check_cuda(cudaStreamSynchronize(stream), "fill");
      std::vector<kb::Measurement> rows = kb::run_case(c, ws, run, stream);
      const int64_t bad = kb::count_nonfinite_out(c, ws);
      if (bad != 0) fmt::print("WARNING {}: {} non-finite outputs after the runs\n", c.label(), bad);
      kb::print_rows(stdout, rows, copy.gbps());
      all.insert(all.end(), rows.begin(), rows.end());
      kb::write_csv(csv, all, copy.gbps());  // rewritten after each case: a cut-off run keeps its rows
    }
    if (copy.bytes > 0) copy.end = kb::time_copy(base + copy.bytes, base, copy.bytes, stream, o.copy_reps);
    kb::write_csv(csv, all, copy.gbps());
    std::ofstream(o.out_dir + "/replayssm_bench.json") << kb::to_json(dev, copy, all).dump(1) << "\n";
    if (!run.profile) kb::print_summary(stdout, copy, all, peer ? &*peer : nullptr, o.out_dir);
    cudaStreamDestroy(stream);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "replayssm_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
