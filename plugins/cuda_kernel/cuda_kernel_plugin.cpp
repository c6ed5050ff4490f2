// This project's CUDA kernel behind the plugin ABI: what a user gets when they point the
// harness at a CUDA library of their own, with ours in its place. The harness drives it
// exactly as it would drive theirs (`--backend plugin:libkda_cuda_kernel_kda_replayssm.so`).
// Built once per operator our kernel serves, with that operator's launcher (its folder's
// kda_cuda_kernel declaration, operators/CMakeLists.txt): KDA_CUDA_PLUGIN_OP names the
// operator, KDA_CUDA_PLUGIN_NAME the plugin, KDA_CUDA_PLUGIN_KERNEL the operator's
// engine/backends/cuda_kernel.hpp row (its contract, launcher, index dtypes and ring variants).
//
// The ABI carries no per-row status, so a row the kernel would flag at run time (a slot out
// of range, a cursor or circular base outside the ring, two rows on one slot) is refused before
// launch (declared KDA_INVALID_ROWS_RAISE): this plugin applies the operator's contract, copies
// the index tensors to the host and applies the contract's runtime-value checks there (a
// synchronization the graph-capturable launcher avoids), then launches.
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "contract/host_tensor.hpp"
#include "contract/scalar_type.hpp"
#include "contract/tensor_view.hpp"
#include "contract/validate.hpp"
#include "engine/backends/cuda_kernel.hpp"
#include "engine/backends/plugin_call.hpp"
#include "kda_harness/plugin.h"

#if !defined(KDA_CUDA_PLUGIN_OP) || !defined(KDA_CUDA_PLUGIN_NAME) || !defined(KDA_CUDA_PLUGIN_KERNEL)
#error "plugins/CMakeLists.txt defines KDA_CUDA_PLUGIN_OP, KDA_CUDA_PLUGIN_NAME and KDA_CUDA_PLUGIN_KERNEL"
#endif

namespace kda::engine {
extern const CudaKernel KDA_CUDA_PLUGIN_KERNEL;  // the operator's cuda_launch.cpp
}

namespace {

const kda::engine::CudaKernel& kKernel = kda::engine::KDA_CUDA_PLUGIN_KERNEL;

thread_local std::string last_error_text;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// A host copy (same dtype, shape and strides) of a small device tensor.
kda::HostTensor to_host(const DLTensor& dev) {
  kda::HostTensor h(*kda::scalar_type_of(dev.dtype), kda::shape_of(dev), kda::strides_of(dev));
  check(cudaMemcpy(h.storage().data(), static_cast<const char*>(dev.data) + dev.byte_offset, h.storage().size(),
                   cudaMemcpyDeviceToHost),
        "index copy");
  return h;
}

int32_t step(void*, const kda_call* call) {
  try {
    kda::StepArgs a = kda::engine::step_args_of(*call);
    const kda::Dims d = kKernel.validate(a, kda::Backend::Cuda);
    kda::HostTensor idx = to_host(*a.ssm_state_indices);
    kda::HostTensor pos = a.write_pos ? to_host(*a.write_pos) : kda::HostTensor();
    kda::HostTensor ff = a.force_flush ? to_host(*a.force_flush) : kda::HostTensor();
    const bool base_read = a.circular_replay && a.cache_base;  // cache_base is read under circular replay only
    kda::HostTensor base = base_read ? to_host(*a.cache_base) : kda::HostTensor();
    kda::StepArgs host = a;
    host.ssm_state_indices = &idx.dl();
    host.write_pos = a.write_pos ? &pos.dl() : nullptr;
    host.force_flush = a.force_flush ? &ff.dl() : nullptr;
    host.cache_base = base_read ? &base.dl() : nullptr;
    kda::check_runtime_values(host, d);
    kKernel.launch(a, static_cast<cudaStream_t>(call->stream), nullptr);
    return 0;
  } catch (const std::exception& e) {
    last_error_text = e.what();
    return 1;
  }
}

const char* last_error(void*) { return last_error_text.c_str(); }

// Every dtype, index type, size and layout the contract allows, on the GPU.
kda_plugin plugin_of(const kda::engine::CudaKernel& k) {
  return {
      KDA_PLUGIN_ABI_VERSION,
      KDA_CUDA_PLUGIN_NAME,
      KDA_CUDA_PLUGIN_OP,
      KDA_PROFILE_HELION,
      {KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, k.index_dtypes, 1, int64_t{1} << 20, 1,
       int64_t{1} << 20, 0, 1, kDLCUDA},
      nullptr,
      step,
      last_error,
      KDA_INVALID_ROWS_RAISE,  // the runtime-value checks above, on the host
      k.ring_modes,
  };
}

}  // namespace

extern "C" KDA_PLUGIN_EXPORT const kda_plugin* kda_plugin_describe(void) {
  static const kda_plugin plugin = plugin_of(kKernel);
  return &plugin;
}
