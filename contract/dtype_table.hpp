// The one dtype table: each element type the contract knows, with its DLPack encoding, its
// size, and the numbers the tolerance model needs (unit roundoff of round-to-nearest, the
// smallest positive normal). Indexed by ScalarType; the kernels' DtypeCode
// (kernels/replayssm_params.hpp) has the same order, so host code of either side reads it,
// and device code reads it through kDtypeBytes and float_dtype_bytes() below.
#pragma once
#include <dlpack/dlpack.h>

#include <cstdint>

namespace kda {

struct DtypeInfo {
  const char* name;        // "bfloat16"
  const char* short_name;  // "bf16"
  uint8_t dl_code;         // kDLFloat, kDLBfloat, kDLInt
  uint8_t bits;
  bool floating;
  double unit_roundoff;    // 2^-24 float32, 2^-8 bfloat16, 2^-11 float16; 0 for integers
  double smallest_normal;  // 2^-126 float32 and bfloat16, 2^-14 float16; 0 for integers
};

inline constexpr DtypeInfo kDtypeTable[] = {
    {"float32", "f32", kDLFloat, 32, true, 0x1p-24, 0x1p-126},
    {"bfloat16", "bf16", kDLBfloat, 16, true, 0x1p-8, 0x1p-126},
    {"float16", "f16", kDLFloat, 16, true, 0x1p-11, 0x1p-14},
    {"int32", "i32", kDLInt, 32, false, 0, 0},
    {"int64", "i64", kDLInt, 64, false, 0, 0},
};
inline constexpr int kDtypeCount = sizeof(kDtypeTable) / sizeof(kDtypeTable[0]);

#ifdef __CUDACC__
#define KDA_HOST_DEVICE __host__ __device__
#else
#define KDA_HOST_DEVICE
#endif

// The bytes of an element of dtype `Code`, a constant that device code may use (device code
// cannot index the host table at run time).
template <int Code>
inline constexpr int kDtypeBytes = kDtypeTable[Code].bits / 8;

// The bytes of a floating element by its code, in host and device code: float32, or one of
// the two 16-bit types (one compare, as the kernels' inner loops want).
static_assert(kDtypeBytes<1> == kDtypeBytes<2>, "bfloat16 and float16 have one size");
KDA_HOST_DEVICE constexpr int float_dtype_bytes(int code) { return code == 0 ? kDtypeBytes<0> : kDtypeBytes<1>; }

}  // namespace kda
