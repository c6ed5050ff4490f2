// The contract sweep's description of one call (metadata only): plain shapes, strides,
// dtypes and devices that mutations edit freely, turned into DLTensors at validation time.
#pragma once
#include <dlpack/dlpack.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "contract/tensor_view.hpp"
#include "contract/host_tensor.hpp"
#include "contract/step_args.hpp"
#include "contract/validate.hpp"

namespace kda::cli {

struct TensorMeta {
  DLDataType dtype{kDLFloat, 32, 1};
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // empty: null strides (compact)
  DLDevice device{kDLCPU, 0};
  // New shape, compact; explicit strides stay explicit.
  void reshape(std::vector<int64_t> s);
  // Explicit strides (the compact ones if they were null), for editing.
  std::vector<int64_t>& explicit_strides();
};

// The sizes a valid call is built from.
struct SweepDims {
  int64_t B = 1, H = 1, HV = 1, K = 1, V = 1, L = 1, slots = 1;
};

struct MetaCall {
  SweepDims dims;
  TensorMeta mixed_qkv, a, b, A_log, dt_bias, initial_state, d_cache, k_cache, g_cache, out, ssm_state_indices,
      write_pos;
  std::optional<TensorMeta> force_flush;
  Backend backend = Backend::Any;
  std::string description;  // one line: how the valid call was drawn

  // Every tensor (force_flush last when present).
  std::vector<TensorMeta*> all();
};

// A valid call drawn from (seed, index).
MetaCall draw_valid_call(uint64_t seed, uint64_t index);

// Metadata-only DLTensors of a call, and its arguments.
struct BuiltCall {
  explicit BuiltCall(MetaCall& call);
  std::vector<HostTensor> tensors;
  StepArgs args;
};

}  // namespace kda::cli
