// Global -> shared copies that are all in flight at once (cp.async, sm_80+): a CTA issues
// every copy of a ring chunk without registers and waits once, so the chunk costs one memory
// round trip however many records it holds (a load-then-store loop costs one per unrolled
// group). Rows go as 16-byte copies where every address allows it, else 4-byte copies, else
// plain element loads (2-byte elements off a 4-byte boundary, or strided elements of a ring
// view). The choice is per block, from the addresses: a block's rows share their alignment
// when the row stride is a multiple of the copy size.
#pragma once
#include <cstdint>

namespace kda::cuda::detail {

__device__ __forceinline__ void cp_async16(void* dst, const void* src) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");
}

__device__ __forceinline__ void cp_async4(void* dst, const void* src) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(src) : "memory");
}

// Asks L2 for the line holding `at` (a hint: nothing waits for it, no register is written),
// so that a load issued later finds it there instead of in DRAM.
__device__ __forceinline__ void prefetch_l2(const void* at) {
  asm volatile("prefetch.global.L2 [%0];\n" ::"l"(at));
}

// Waits for this thread's copies; a __syncthreads() must follow before others read them.
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

// Closes this thread's copies issued so far into a group, so that a later wait can leave the
// groups issued after it in flight.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Waits until at most N of this thread's committed groups are still in flight (the newest).
template <int N>
__device__ __forceinline__ void cp_async_wait_prior() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// rows x 2^lg 16-byte chunks: row r from src + r * src_pitch to dst + r * dst_pitch (every
// address and pitch 16-byte aligned), spread over the CTA's threads.
__device__ __forceinline__ void copy_rows16(char* dst, int dst_pitch, const char* src, int64_t src_pitch, int rows,
                                            int lg) {
  const int items = rows << lg, mask = (1 << lg) - 1;
  for (int i = threadIdx.x; i < items; i += blockDim.x) {
    const int r = i >> lg, e = (i & mask) << 4;
    cp_async16(dst + r * dst_pitch + e, src + r * src_pitch + e);
  }
}

// rows x n elements of es bytes (2 or 4) at src (element strides row_stride, elem_stride)
// -> shared memory at dst, row pitch dst_pitch bytes, elements packed.
struct Block2D {
  const char* src;
  int64_t row_stride, elem_stride;
  int rows, n, es;
  char* dst;
  int dst_pitch;
};

__device__ __forceinline__ bool block_aligned(const Block2D& b, int a) {
  const int64_t row_bytes = static_cast<int64_t>(b.n) * b.es;
  return b.elem_stride == 1 && reinterpret_cast<uintptr_t>(b.src) % a == 0 &&
         (b.rows == 1 || (b.row_stride * b.es) % a == 0) && row_bytes % a == 0 &&
         reinterpret_cast<uintptr_t>(b.dst) % a == 0 && b.dst_pitch % a == 0;
}

// Not inlined: one copy of the code serves the three rings and the checkpoint rows
// (instruction-cache footprint).
static __device__ __noinline__ void stage_block(const Block2D b) {
  const int tid = threadIdx.x, nth = blockDim.x;
  const int64_t src_pitch = b.row_stride * b.es;
  const int vec = block_aligned(b, 16) ? 16 : block_aligned(b, 4) ? 4 : 0;  // 0: element copies
  const int per_row = vec != 0 ? b.n * b.es / vec : b.n, items = b.rows * per_row;
  if (vec == 16 && src_pitch == b.dst_pitch && b.dst_pitch == per_row * 16) {  // one contiguous span
    const char* s = b.src + tid * 16;
    char* d = b.dst + tid * 16;
    for (int i = tid; i < items; i += nth, s += nth * 16, d += nth * 16) cp_async16(d, s);
    return;
  }
  // Rows of a power-of-two count of items (every K and V here) index by shifts.
  const bool pow2 = (per_row & (per_row - 1)) == 0;
  const int lg = __ffs(per_row) - 1;
  for (int i = tid; i < items; i += nth) {
    const int r = pow2 ? i >> lg : i / per_row, e = i - r * per_row;
    if (vec == 16) {
      cp_async16(b.dst + r * b.dst_pitch + e * 16, b.src + r * src_pitch + e * 16);
    } else if (vec == 4) {
      cp_async4(b.dst + r * b.dst_pitch + e * 4, b.src + r * src_pitch + e * 4);
    } else {  // element by element (strided, or 2-byte elements off a 4-byte boundary)
      const char* s = b.src + (r * b.row_stride + e * b.elem_stride) * b.es;
      char* d = b.dst + r * b.dst_pitch + e * b.es;
      if (b.es == 4) *reinterpret_cast<uint32_t*>(d) = *reinterpret_cast<const uint32_t*>(s);
      else *reinterpret_cast<uint16_t*>(d) = *reinterpret_cast<const uint16_t*>(s);
    }
  }
}

}  // namespace kda::cuda::detail
