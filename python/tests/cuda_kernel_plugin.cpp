// A CUDA plugin (include/kda_harness/plugin.h) over this project's kernel launcher, for the
// Python package's test of the torch CUDA path on a GPU machine. Refusals carry the
// launcher's validation message; the step returns with the work enqueued on the call's stream.
#include <cuda_runtime_api.h>

#include <exception>
#include <string>

#include "capi/call_args.hpp"
#include "kda_harness/plugin.h"
#include "kernels/replayssm_decode.hpp"

namespace {

thread_local std::string last_message;

int32_t step(void*, const kda_call* call) {
  try {
    kda::cuda::replayssm_decode(kda::capi::to_step_args(*call), static_cast<cudaStream_t>(call->stream));
    return 0;
  } catch (const std::exception& e) {
    last_message = e.what();
    return 1;
  }
}

const char* last_error(void*) { return last_message.c_str(); }

kda_plugin describe() {
  kda_plugin p{};
  p.abi_version = KDA_PLUGIN_ABI_VERSION;
  p.name = "cuda-kernel";
  p.op = "kda_replayssm";
  p.profile = KDA_PROFILE_HELION;
  p.envelope = {KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_INDICES,
                1, INT64_MAX, 1, INT64_MAX, 0, 1, kDLCUDA};
  p.step = step;
  p.last_error = last_error;
  return p;
}

}  // namespace

extern "C" KDA_PLUGIN_EXPORT const kda_plugin* kda_plugin_describe(void) {
  static const kda_plugin plugin = describe();
  return &plugin;
}
