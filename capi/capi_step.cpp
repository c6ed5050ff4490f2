// kda_validate and kda_reference_step: the contract and the reference on a caller's call.
#include <cstring>

#include "capi/status.hpp"
#include "contract/validate.hpp"
#include "engine/plugin_call.hpp"
#include "reference/replayssm_step.hpp"

namespace {

// The call's arguments; every tensor but force_flush must be there.
kda::StepArgs step_args(const kda_call* call) {
  if (call == nullptr) throw std::invalid_argument("call is NULL");
  for (int32_t i = 0; i < call->num_scalars; ++i)
    if (std::strcmp(call->scalar_names[i], "scale") == 0 && call->scalar_present && !call->scalar_present[i])
      throw std::invalid_argument("scalar 'scale' is required");
  const kda::StepArgs a = kda::engine::step_args_of(*call);
  const std::pair<const char*, const void*> required[] = {
      {"mixed_qkv", a.mixed_qkv}, {"a", a.a}, {"b", a.b}, {"A_log", a.A_log}, {"dt_bias", a.dt_bias},
      {"initial_state", a.initial_state}, {"d_cache", a.d_cache}, {"k_cache", a.k_cache}, {"g_cache", a.g_cache},
      {"out", a.out}, {"ssm_state_indices", a.ssm_state_indices}, {"write_pos", a.write_pos}};
  for (const auto& [name, t] : required)
    if (t == nullptr) throw std::invalid_argument(std::string("missing tensor argument '") + name + "'");
  return a;
}

void put_dims(const kda::Dims& d, kda_dims* out) {
  if (out != nullptr) *out = {d.B, d.H, d.HV, d.K, d.V, d.L, d.slots};
}

kda::Backend backend_of(int32_t device) {
  switch (device) {
    case KDA_DEVICE_ANY: return kda::Backend::Any;
    case KDA_DEVICE_CPU: return kda::Backend::Cpu;
    case KDA_DEVICE_CUDA: return kda::Backend::Cuda;
  }
  throw std::invalid_argument("device must be KDA_DEVICE_ANY, KDA_DEVICE_CPU or KDA_DEVICE_CUDA");
}

// The runtime-value checks read the index tensors: they must be in host memory.
void require_host_indices(const kda::StepArgs& a) {
  for (const DLTensor* t : {a.ssm_state_indices, a.write_pos, a.force_flush})
    if (t != nullptr && (t->device.device_type != kDLCPU || t->data == nullptr))
      throw std::invalid_argument("check_values needs host-resident index tensors with data");
}

}  // namespace

extern "C" {

int32_t kda_capi_version(void) { return KDA_CAPI_VERSION; }

int32_t kda_validate(const kda_call* call, int32_t device, int32_t check_values, kda_dims* dims, kda_error* err) {
  return kda::capi::guarded(err, [&] {
    const kda::StepArgs args = step_args(call);
    const kda::Dims d = kda::validate(args, backend_of(device));
    if (check_values) {
      require_host_indices(args);
      kda::check_runtime_values(args, d);
    }
    put_dims(d, dims);
    return KDA_OK;
  });
}

int32_t kda_reference_step(const kda_call* call, int32_t rounding, kda_dims* dims, kda_error* err) {
  return kda::capi::guarded(err, [&] {
    if (rounding != 0 && rounding != 1) throw std::invalid_argument("rounding must be 0 (kernel) or 1 (off)");
    const kda::StepArgs args = step_args(call);
    const auto r = rounding == 0 ? kda::reference::Rounding::Kernel : kda::reference::Rounding::Off;
    put_dims(kda::reference::replayssm_step(args, r), dims);
    return KDA_OK;
  });
}

}  // extern "C"
