#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string_view>

#include "engine/backends/gpu_probe.hpp"

namespace kda::engine {
namespace {

// The device id of CTest's resource group 0 ("id:3,slots:1"), or -1 when CTest assigned none.
int assigned_gpu() {
  const char* spec = std::getenv("CTEST_RESOURCE_GROUP_0_GPUS");
  if (spec == nullptr) return -1;
  const std::string_view s(spec);
  const auto at = s.find("id:");
  if (at == std::string_view::npos) return -1;
  return std::atoi(std::string(s.substr(at + 3)).c_str());
}

std::string select_device() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) return std::string("no CUDA device: ") + cudaGetErrorString(e);
  if (count == 0) return "no CUDA device: cudaGetDeviceCount returned 0";
  const int assigned = assigned_gpu();
  const int device = assigned >= 0 ? assigned : 0;
  if (device >= count)
    return fmt::format("CTest assigned GPU {} but only {} are visible", device, count);
  if (const cudaError_t s = cudaSetDevice(device); s != cudaSuccess)
    return std::string("cudaSetDevice failed: ") + cudaGetErrorString(s);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, device);
  if (prop.major < 9)
    return fmt::format("the kernel is built for sm_90; device {} is sm_{}{}", device, prop.major, prop.minor);
  return "";
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

std::string gpu_unavailable_reason() {
  static const std::string reason = select_device();
  return reason;
}

namespace {

std::string probe_in_a_child() {
  int fds[2];
  if (pipe(fds) != 0) return gpu_unavailable_reason();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return gpu_unavailable_reason();
  }
  if (pid == 0) {  // the child: probe, write the reason, leave without running atexit handlers
    close(fds[0]);
    const std::string why = select_device();
    std::size_t at = 0;
    while (at < why.size()) {
      const ssize_t n = write(fds[1], why.data() + at, why.size() - at);
      if (n <= 0) _exit(1);
      at += static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string why;
  char buffer[512];
  for (;;) {
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n > 0) why.append(buffer, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR) break;
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return "no CUDA device: the probe process failed (" +
           (WIFSIGNALED(status) ? fmt::format("signal {}", WTERMSIG(status)) : fmt::format("exit {}", WEXITSTATUS(status))) +
           ")";
  return why;
}

}  // namespace

std::string gpu_unavailable_reason_from_a_child() {
  // A child of a process that has started the driver already (torch, say) cannot use it: then
  // the answer of this process itself counts, and asking it here costs nothing more.
  static const std::string reason = probe_in_a_child().empty() ? std::string() : gpu_unavailable_reason();
  return reason;
}

}  // namespace kda::engine
