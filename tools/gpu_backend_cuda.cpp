#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <memory>

#include "contract/validate.hpp"
#include "property_tests/kernel_device_mirror.hpp"
#include "property_tests/kernel_rollout.hpp"
#include "property_tests/kernel_row_plan.hpp"
#include "reference/tolerance.hpp"
#include "tools/gpu_backend.hpp"

namespace kda::cli {
namespace {

void use_device(int device) { testing::check_cuda(cudaSetDevice(device), "cudaSetDevice"); }

// The worst of several comparisons, as a case outcome.
void fold(CaseOutcome& o, const reference::Comparison& c) {
  if (c.blocks == 0) return;
  if (!o.compared || std::isnan(c.worst_error) || c.ratio() > o.ratio()) {
    o.compared = true;
    o.error = c.worst_error;
    o.tolerance = c.tolerance;
  }
}

}  // namespace

GpuProbe probe_gpus() {
  GpuProbe p;
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    p.reason = std::string("no CUDA device: ") + cudaGetErrorString(e);
    return p;
  }
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
    if (prop.major < 9) {
      p.reason += fmt::format("device {} is sm_{}{} (the kernel needs sm_90); ", d, prop.major, prop.minor);
      continue;
    }
    p.devices.push_back(d);
    p.names.push_back(fmt::format("{}: {} (sm_{}{})", d, prop.name, prop.major, prop.minor));
  }
  if (p.devices.empty() && p.reason.empty()) p.reason = "no CUDA device: cudaGetDeviceCount returned 0";
  return p;
}

golden::VerifyBackend cuda_backend(int device) {
  auto mirror = std::make_shared<std::unique_ptr<testing::DeviceMirror>>();
  golden::VerifyBackend b;
  b.name = fmt::format("cuda:{}", device);
  b.tf32_products = false;  // as the kernel suite bounds the kernel (property_tests/kernel_rollout.cpp)
  b.step = [mirror, device](const StepArgs& host) {
    use_device(device);
    if (!*mirror) *mirror = std::make_unique<testing::DeviceMirror>();
    testing::DeviceMirror& m = **mirror;
    try {
      m.step(host);
    } catch (const ContractError&) {
      m.download_written(host);
      throw;
    }
    const auto plans = testing::plan_rows(host, validate(host, Backend::Cpu));
    const auto status = m.row_status();
    for (std::size_t row = 0; row < plans.size(); ++row)
      if (status.at(row) != plans[row].status)
        throw std::runtime_error(fmt::format("row {}: kernel status {}, expected {}", row, status[row], plans[row].status));
    if (!m.guards_intact()) throw std::runtime_error("a device guard region changed");
  };
  return b;
}

CaseOutcome kernel_vs_reference(const CaseConfig& config, int device) {
  use_device(device);
  testing::DeviceMirror mirror;
  const testing::KernelRolloutReport r = testing::run_kernel_vs_reference(config, mirror);
  CaseOutcome o;
  o.pass = r.pass() && mirror.guards_intact();
  for (const auto* c : {&r.out, &r.state, &r.d_ring, &r.k_ring, &r.g_ring}) fold(o, *c);
  o.replay = fmt::format("kda-harness case \"{}\" --backend cuda --against reference", to_string(config));
  o.detail = r.summary();
  if (!mirror.guards_intact()) o.detail += "\n  FAILURE: a device guard region changed";
  return o;
}

reference::RolloutReport kernel_vs_truth(const CaseConfig& config, int device) {
  use_device(device);
  testing::DeviceMirror mirror;
  reference::RolloutReport r = reference::run_rollout(
      config, [&mirror](const StepArgs& host) { mirror.step(host); }, reference::rollout_bounds(config, false));
  if (!mirror.guards_intact()) r.outputs.pass = false, r.outputs.where += " (a device guard region changed)";
  return r;
}

}  // namespace kda::cli
