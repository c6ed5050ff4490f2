// kda_validate and kda_reference_step: the contract and the reference of the operator a
// caller's call names (call->op).
#include "capi/operator_args.hpp"
#include "capi/status.hpp"
#include "contract/validate.hpp"

namespace {

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
    const kda::engine::OperatorDescription& op = kda::capi::operator_of(call);
    const kda::StepArgs args = kda::capi::operator_args(call, op);
    const kda::Dims d = op.validate(args, backend_of(device));
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
    const kda::engine::OperatorDescription& op = kda::capi::operator_of(call);
    const kda::StepArgs args = kda::capi::operator_args(call, op);
    const auto r = rounding == 0 ? kda::reference::Rounding::Kernel : kda::reference::Rounding::Off;
    put_dims(op.reference_step(args, r), dims);
    return KDA_OK;
  });
}

}  // extern "C"
