// Bytes -> the metadata of one call: all sixteen arguments of the ReplaySSM decode step as
// metadata-only tensors (contract/host_tensor.hpp: any dtype, any device, no data).
//
// Structure (FuzzedDataProvider): first a PLAUSIBLE call — B, H, the GQA ratio, K, V, L and
// slots from palettes that mix typical values with 0, 1, off-by-one and huge sizes (up to
// 2^62 and INT64_MAX), float dtypes per tensor, int32/int64 indices, 2-D/3-D `a`, 1-D/2-D
// `dt_bias`, null or explicit compact strides per tensor, padded slot strides on the state
// and the rings, one device (CPU or CUDA with an index), force_flush present or absent, any
// scale and lower_bound (absent, finite, +-inf, NaN, raw bits); then 0..8 mutations, each on
// one tensor: rank 0..5, one size, one stride (negative, zero, odd, padded, huge), an odd
// stride on a size-1 dim, null <-> explicit strides, any DLPack dtype code/bits/lanes, any
// device type and index, swapped strides (a transposed view), force_flush toggled.
// An empty input decodes to a valid call, so the fuzzer starts inside the contract.
#pragma once
#include <fuzzer/FuzzedDataProvider.h>

#include "contract/metadata_json.hpp"
#include "contract/validate.hpp"

namespace kda::fuzz {

struct DecodedCall {
  StepTensors meta;  // args() points into it: keep the object in place while they are used
  Backend backend = Backend::Any;
};

DecodedCall decode_call(FuzzedDataProvider& fdp);

}  // namespace kda::fuzz
