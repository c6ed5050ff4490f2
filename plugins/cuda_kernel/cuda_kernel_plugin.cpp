// This project's CUDA kernel behind the plugin ABI: what a user gets when they point the
// harness at a CUDA library of their own, with ours in its place. The harness drives it
// exactly as it would drive theirs (`--backend plugin:libkda_cuda_kernel_kda_replayssm.so`).
// Built once per operator: for ReplaySSM, with KDA_PLUGIN_PACKED_DECODE for the plain packed
// decode (libkda_cuda_kernel_kda_packed_decode.so; `check --op kda_packed_decode`), and with
// KDA_PLUGIN_GDN_REPLAYSSM for GDN ReplaySSM (libkda_cuda_kernel_gdn_replayssm.so: the
// operator's contract first, then our kernel with one gate per value head; int32 indices).
//
// The ABI carries no per-row status, so a row the kernel would flag at run time (a slot out
// of range, a cursor or circular base outside the ring, two rows on one slot) is refused before
// launch (declared KDA_INVALID_ROWS_RAISE): this plugin copies the index tensors to the host
// and applies the contract's runtime-value checks there (a synchronization the
// graph-capturable launcher avoids).
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "contract/host_tensor.hpp"
#include "contract/scalar_type.hpp"
#include "contract/tensor_view.hpp"
#include "contract/validate.hpp"
#include "operators/kda_packed_decode/contract.hpp"
#include "engine/backends/plugin_call.hpp"
#include "kda_harness/plugin.h"
#include "kernels/gdn_replayssm_decode.hpp"
#include "kernels/packed_decode.hpp"
#include "kernels/replayssm_decode.hpp"
#ifdef KDA_PLUGIN_GDN_REPLAYSSM
#include "operators/gdn_replayssm/contract.hpp"
#endif

#if defined(KDA_PLUGIN_PACKED_DECODE)
constexpr const char* kName = "kda-cuda-packed-decode";
constexpr const char* kOp = "kda_packed_decode";
constexpr auto kValidate = &kda::validate_packed_decode;
constexpr auto kLaunch = &kda::cuda::packed_decode;
constexpr uint32_t kIndexDtypes = KDA_DT_ALL_INDICES;
constexpr uint32_t kRingModes = KDA_RING_LINEAR;  // no rings: the linear ring's protocol at L = 1
#elif defined(KDA_PLUGIN_GDN_REPLAYSSM)
constexpr const char* kName = "kda-cuda-gdn-replayssm";
constexpr const char* kOp = "gdn_replayssm";
constexpr auto kValidate = &kda::validate_gdn_replayssm;
constexpr auto kLaunch = &kda::cuda::gdn_replayssm_decode;
constexpr uint32_t kIndexDtypes = KDA_DT_INT32;  // the GDN contract refuses int64 (G25)
constexpr uint32_t kRingModes = KDA_RING_ALL;     // linear and circular rings (circular-replay.md)
#else
// A planted-bug copy (plugins/CMakeLists.txt) names itself.
#ifndef KDA_CUDA_PLUGIN_NAME
#define KDA_CUDA_PLUGIN_NAME "kda-cuda-kernel"
#endif
constexpr const char* kName = KDA_CUDA_PLUGIN_NAME;
constexpr const char* kOp = "kda_replayssm";
constexpr auto kValidate = &kda::validate;
constexpr auto kLaunch = &kda::cuda::replayssm_decode;
constexpr uint32_t kIndexDtypes = KDA_DT_ALL_INDICES;
constexpr uint32_t kRingModes = KDA_RING_LINEAR;  // the KDA operators have linear rings only
#endif

namespace {

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
    const kda::Dims d = kValidate(a, kda::Backend::Cuda);
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
    kLaunch(a, static_cast<cudaStream_t>(call->stream), nullptr);
    return 0;
  } catch (const std::exception& e) {
    last_error_text = e.what();
    return 1;
  }
}

const char* last_error(void*) { return last_error_text.c_str(); }

const kda_plugin kPlugin = {
    KDA_PLUGIN_ABI_VERSION,
    kName,
    kOp,
    KDA_PROFILE_HELION,
    // Every dtype, index type, size and layout the contract allows, on the GPU.
    {KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, kIndexDtypes, 1, int64_t{1} << 20,
     1, int64_t{1} << 20, 0, 1, kDLCUDA},
    nullptr,
    step,
    last_error,
    KDA_INVALID_ROWS_RAISE,  // the runtime-value checks above, on the host
    kRingModes,
};

}  // namespace

extern "C" KDA_PLUGIN_EXPORT const kda_plugin* kda_plugin_describe(void) { return &kPlugin; }
