// Test-side description of one call's metadata: every argument as a plain TensorSpec that
// tests and mutations edit freely, turned into DLTensors only at the end. Also the valid
// calls the contract tests start from (ValidCallConfig -> make_valid_spec).
#pragma once
#include <dlpack/dlpack.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "contract/tensor_view.hpp"
#include "contract/host_tensor.hpp"
#include "contract/scalar_type.hpp"
#include "contract/step_args.hpp"
#include "contract/validate.hpp"

namespace kda::test {

struct TensorSpec {
  DLDataType dtype{kDLFloat, 32, 1};
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // ignored when null_strides
  bool null_strides = true;
  DLDevice device{kDLCPU, 0};

  // New shape with compact explicit strides (dtype and device kept).
  TensorSpec& reshape(std::vector<int64_t> new_shape);
  // Explicit strides (compact ones filled in first when they were null).
  std::vector<int64_t>& explicit_strides();
};

struct CallSpec {
  TensorSpec mixed_qkv, a, b, A_log, dt_bias, initial_state, d_cache, k_cache, g_cache, out, ssm_state_indices,
      write_pos;
  std::optional<TensorSpec> force_flush;
  Backend backend = Backend::Any;

  // The twelve required tensors, then force_flush if present, in contract.md's order.
  std::vector<TensorSpec*> all();
};

// Metadata-only DLTensors for a CallSpec (no data).
struct BuiltCall {
  explicit BuiltCall(const CallSpec& spec);
  std::vector<HostTensor> tensors;  // same order as CallSpec::all()
  bool has_force_flush = false;
  StepArgs args();
};

// A VALID call, drawn by the property test (every field is within contract.md's rules).
struct ValidCallConfig {
  int64_t B = 3, H = 2, group = 2, K = 128, V = 128, L = 4, slots = 5;
  bool a_3d = false, dt_2d = false, force_flush = true;
  int64_t envelope_pad = 0;  // > 0: state and rings get slot stride (compact + pad)
  int64_t unit_stride = 1;   // odd > 1: dims of size 1 get this stride (where no check reads it)
  bool null_strides = true;  // compact tensors leave DLTensor::strides null
  ScalarType act = ScalarType::BFloat16, state = ScalarType::Float32, ring = ScalarType::BFloat16,
             out = ScalarType::BFloat16, index = ScalarType::Int32;
  DLDevice device{kDLCPU, 0};
  Backend backend = Backend::Any;

  int64_t HV() const { return H * group; }
  Dims dims() const { return {B, H, HV(), K, V, L, slots}; }
};

CallSpec make_valid_spec(const ValidCallConfig& c);
void showValue(const ValidCallConfig& c, std::ostream& os);
std::string to_string(const ValidCallConfig& c);

}  // namespace kda::test
