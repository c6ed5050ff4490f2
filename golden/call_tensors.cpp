#include "golden/call_tensors.hpp"

#include <algorithm>

namespace kda::golden {

std::vector<std::pair<std::string, HostTensor*>> written_tensors(StepTensors& call) {
  return {{"out", &call.out},
          {"initial_state", &call.initial_state},
          {"d_cache", &call.d_cache},
          {"k_cache", &call.k_cache},
          {"g_cache", &call.g_cache}};
}

void copy_bytes(const HostTensor& src, HostTensor& dst) {
  if (!src.same_layout(dst))
    throw SafetensorsError("golden case: a per-step tensor differs in dtype, shape or strides from step 0's");
  dst.copy_bytes_from(src);
}

StepTensors load_call(const GoldenCase& c) {
  StepTensors call;
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
  call.use_qk_l2norm_in_kernel = c.l2norm;
  call.lower_bound = c.lower_bound;
  return call;
}

void load_step_inputs(const GoldenCase& c, int64_t t, StepTensors& call) {
  copy_bytes(c.at(step_name(c, t, "mixed_qkv")), call.mixed_qkv);
  copy_bytes(c.at(step_name(c, t, "a")), call.a);
  copy_bytes(c.at(step_name(c, t, "b")), call.b);
  copy_bytes(c.at(step_name(c, t, "write_pos")), call.write_pos);
  if (call.force_flush) copy_bytes(c.at(step_name(c, t, "force_flush")), *call.force_flush);
  copy_bytes(c.at("out"), call.out);
}

}  // namespace kda::golden
