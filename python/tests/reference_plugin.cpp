// A host plugin (include/kda_harness/plugin.h) whose step is the harness's reference step: the
// tests drive the Python package's plugin path with it on a machine without a GPU, where the
// CUDA kernel's plugin cannot run. Refusals carry the reference's validation message.
#include <exception>
#include <string>

#include "capi/call_args.hpp"
#include "kda_harness/plugin.h"
#include "reference/replayssm_step.hpp"

namespace {

thread_local std::string last_message;

int32_t step(void*, const kda_call* call) {
  try {
    kda::reference::replayssm_step(kda::capi::to_step_args(*call));
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
  p.name = "reference";
  p.op = "kda_replayssm";
  p.profile = KDA_PROFILE_HELION;
  p.envelope = {KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_INDICES,
                1, INT64_MAX, 1, INT64_MAX, 0, 1, kDLCPU};
  p.step = step;
  p.last_error = last_error;
  return p;
}

}  // namespace

extern "C" KDA_PLUGIN_EXPORT const kda_plugin* kda_plugin_describe(void) {
  static const kda_plugin plugin = describe();
  return &plugin;
}
