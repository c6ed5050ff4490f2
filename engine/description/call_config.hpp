// A valid call's configuration, metadata only: the dims, layouts, dtypes and placement an
// operator's sample_call draws and its valid_spec turns into a CallSpec
// (engine/description/operator.hpp). The fields name roles every decode operator has; an
// operator without a role ignores its field (the plain packed decode has no ring length L).
#pragma once
#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>

#include "contract/scalar_type.hpp"
#include "contract/step_args.hpp"
#include "contract/validate.hpp"

namespace kda::engine {

struct CallConfig {
  int64_t B = 3, H = 2, group = 2, K = 128, V = 128, L = 4, slots = 5;
  int64_t tokens = 1;  // T, tokens per sequence, of an operator that takes several (1 for the others)
  bool a_3d = false, dt_2d = false, force_flush = true;
  int64_t envelope_pad = 0;  // > 0: state and rings get slot stride (compact + pad)
  int64_t unit_stride = 1;   // odd > 1: dims of size 1 get this stride (where no check reads it)
  bool null_strides = true;  // compact tensors leave DLTensor::strides null
  ScalarType act = ScalarType::BFloat16, state = ScalarType::Float32, ring = ScalarType::BFloat16,
             out = ScalarType::BFloat16, index = ScalarType::Int32;
  DLDevice device{kDLCPU, 0};
  kda::Backend backend = kda::Backend::Any;

  int64_t HV() const { return H * group; }
  Dims dims() const { return {B, H, HV(), K, V, L, slots}; }
};
std::string to_string(const CallConfig& c);

}  // namespace kda::engine
