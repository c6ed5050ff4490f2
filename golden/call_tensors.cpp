#include "golden/call_tensors.hpp"

#include <algorithm>

namespace kda::golden {

StepArgs CallTensors::args() {
  StepArgs s;
  s.mixed_qkv = &mixed_qkv.dl();
  s.a = &a.dl();
  s.b = &b.dl();
  s.A_log = &A_log.dl();
  s.dt_bias = &dt_bias.dl();
  s.scale = scale;
  s.initial_state = &initial_state.dl();
  s.d_cache = &d_cache.dl();
  s.k_cache = &k_cache.dl();
  s.g_cache = &g_cache.dl();
  s.out = &out.dl();
  s.ssm_state_indices = &ssm_state_indices.dl();
  s.write_pos = &write_pos.dl();
  s.force_flush = force_flush ? &force_flush->dl() : nullptr;
  s.use_qk_l2norm_in_kernel = l2norm;
  s.lower_bound = lower_bound;
  return s;
}

std::vector<std::pair<std::string, HostTensor*>> CallTensors::written() {
  return {{"out", &out},
          {"initial_state", &initial_state},
          {"d_cache", &d_cache},
          {"k_cache", &k_cache},
          {"g_cache", &g_cache}};
}

void copy_bytes(const HostTensor& src, HostTensor& dst) {
  if (src.dl().dtype.code != dst.dl().dtype.code || src.dl().dtype.bits != dst.dl().dtype.bits ||
      src.shape() != dst.shape() || src.strides() != dst.strides())
    throw SafetensorsError("golden case: a per-step tensor differs in dtype, shape or strides from step 0's");
  std::copy(src.storage().begin(), src.storage().end(), dst.storage().begin());
}

CallTensors load_call(const GoldenCase& c) {
  CallTensors call;
  call.mixed_qkv = c.at(step_name(c, 0, "mixed_qkv"));
  call.a = c.at(step_name(c, 0, "a"));
  call.b = c.at(step_name(c, 0, "b"));
  call.write_pos = c.at(step_name(c, 0, "write_pos"));
  if (c.has(step_name(c, 0, "force_flush"))) call.force_flush = c.at(step_name(c, 0, "force_flush"));
  call.A_log = c.at("A_log");
  call.dt_bias = c.at("dt_bias");
  call.initial_state = c.at("initial_state");
  call.d_cache = c.at("d_cache");
  call.k_cache = c.at("k_cache");
  call.g_cache = c.at("g_cache");
  call.out = c.at("out");
  call.ssm_state_indices = c.at("ssm_state_indices");
  call.scale = c.scale;
  call.l2norm = c.l2norm;
  call.lower_bound = c.lower_bound;
  return call;
}

void load_step_inputs(const GoldenCase& c, int64_t t, CallTensors& call) {
  copy_bytes(c.at(step_name(c, t, "mixed_qkv")), call.mixed_qkv);
  copy_bytes(c.at(step_name(c, t, "a")), call.a);
  copy_bytes(c.at(step_name(c, t, "b")), call.b);
  copy_bytes(c.at(step_name(c, t, "write_pos")), call.write_pos);
  if (call.force_flush) copy_bytes(c.at(step_name(c, t, "force_flush")), *call.force_flush);
  copy_bytes(c.at("out"), call.out);
}

}  // namespace kda::golden
