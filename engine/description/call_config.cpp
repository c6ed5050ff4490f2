#include "engine/description/call_config.hpp"

#include <fmt/format.h>

namespace kda::engine {

std::string to_string(const CallConfig& c) {
  const auto dev = [](DLDevice d) {
    return fmt::format("{}:{}", d.device_type == kDLCPU ? "cpu" : "cuda", d.device_id);
  };
  const char* backend = c.backend == kda::Backend::Any   ? "any"
                        : c.backend == kda::Backend::Cpu ? "cpu"
                                                         : "cuda";
  return fmt::format(
      "B={} H={} HV={} K={} V={} L={} slots={} a3d={} dt2d={} ff={} env_pad={} unit_stride={} null_strides={} act={} "
      "state={} ring={} out={} idx={} device={} backend={}",
      c.B, c.H, c.HV(), c.K, c.V, c.L, c.slots, int(c.a_3d), int(c.dt_2d), int(c.force_flush), c.envelope_pad,
      c.unit_stride, int(c.null_strides), name_of(c.act), name_of(c.state), name_of(c.ring), name_of(c.out),
      name_of(c.index), dev(c.device), backend);
}

}  // namespace kda::engine
