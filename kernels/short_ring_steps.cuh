// What the two short-ring kernels (replayssm_short_ring_kernel.cu, 8 warps of 16 rows, and
// replayssm_short_ring_4warp_kernel.cu, 4 warps of 32) share whatever the split of the CTA's rows
// over its warps: where a warp's checkpoint rows are and how a group of them loads into registers,
// a state row's results, and the launcher's once-per-device kernel attributes. The rest of their
// steps stays written in each kernel: as helpers, nvcc ordered those kernels' machine code
// differently (scripts/kernel_code_unchanged.sh).
#pragma once
#include <atomic>
#include <cstdint>

#include "kernels/lane_columns.cuh"
#include "kernels/replayssm_device.cuh"

namespace kda::cuda::detail {

// Where a warp's checkpoint rows are: the lane's first column of the warp's first row, and
// how to step a row (one vector access per row when the layout allows it).
struct WarpRows {
  char* at;           // byte address of (first row, c0)
  int64_t row_bytes;  // byte step between rows
  int64_t off, row, col;  // element offset of (first row, c0) and element strides (element path)
  bool vec;
};

// A group of G rows as loaded: raw[rr] holds the lane's columns of row rel + rr (rel: rows
// after the warp's first row; zeros past n).
template <int NC, int32_t SDT, int G>
__device__ __forceinline__ void load_group(const ReplayParams& p, const WarpRows& w, int rel, int n,
                                           uint32_t (&raw)[G][raw_words<NC, SDT>()]) {
#pragma unroll
  for (int rr = 0; rr < G; ++rr)
#pragma unroll
    for (int i = 0; i < raw_words<NC, SDT>(); ++i) raw[rr][i] = 0;
  if (n <= 0) return;
  if (w.vec) {  // one address computation per group, then a pointer step per row
    const char* at = w.at + rel * w.row_bytes;
#pragma unroll
    for (int rr = 0; rr < G; ++rr, at += w.row_bytes)
      if (rr < n) load_raw<NC, SDT>(at, raw[rr]);
    return;
  }
#pragma unroll
  for (int rr = 0; rr < G; ++rr) {
    if (rr >= n) continue;
    float x[NC];
    load_cols(p.state.ptr, SDT, w.off + (rel + rr) * w.row, w.col, x);
    pack_raw<NC, SDT>(x, raw[rr]);
  }
}

// State row v's results: o = sq + d kq (S.(q scale) + d k.(q scale)) -> out, and for an
// append (not flush) its delta d into the ring at (slot, hv, cursor).
__device__ __forceinline__ void store_row_results(const ReplayParams& p, bool flush, int64_t slot, int hv,
                                                  int32_t cursor, int64_t out_row, int64_t v, float sq, float d,
                                                  float kq) {
  store_float(p.out.ptr, out_row + v * p.out.stride[2], p.out.dtype, sq + d * kq);
  if (!flush) store_float(p.d_cache.ptr, off4(p.d_cache, slot, hv, cursor, v), p.d_cache.dtype, d);
}

// Runs set() (kernel attributes: once per instantiation and device is enough) unless done
// already holds device d's bit, and sets the bit when set() succeeds.
template <class Set>
cudaError_t once_per_device(std::atomic<uint64_t>& done, Set&& set) {
  int dev = 0;
  if (const cudaError_t e = cudaGetDevice(&dev); e != cudaSuccess) return e;
  const uint64_t bit = dev < 64 ? uint64_t{1} << dev : 0;
  if (bit != 0 && (done.load(std::memory_order_relaxed) & bit) != 0) return cudaSuccess;
  if (const cudaError_t e = set(); e != cudaSuccess) return e;
  done.fetch_or(bit, std::memory_order_relaxed);
  return cudaSuccess;
}

}  // namespace kda::cuda::detail
