// Backends whose tensors live on a CUDA device: our kernel, and CUDA plugins. Both run on
// host tensors through a DeviceMirror (upload, out poisoned with NaN, launch, download what
// the step may write), so the engine's checks read host bytes. Built from cuda_backend.cpp
// with the kernel (KDA_ENABLE_CUDA), else from cuda_backend_none.cpp, whose factories throw.
#pragma once
#include <memory>
#include <string>

#include "engine/backends/backend.hpp"
#include "kda_harness/plugin.h"

namespace kda::engine {

// Our kernel for the operator on GPU `device` (-1: the CTest-assigned one, else 0). It
// reports per-row status and its device guard regions.
std::unique_ptr<Backend> make_cuda_backend(int device, const OperatorDescription& op = default_operator());

// A kDLCUDA plugin, on the current device.
std::unique_ptr<Backend> cuda_plugin_backend(const kda_plugin& description, const std::string& what);

// One step of a plugin on `args` (tensors on the plugin's device, `stream` for CUDA plugins).
// A refusal raises ContractError when its text is a catalog message, else BackendRefusal
// naming `backend` (plugin_backend.cpp).
void call_plugin(const kda_plugin& plugin, const std::string& backend, const StepArgs& args, void* stream);

}  // namespace kda::engine
