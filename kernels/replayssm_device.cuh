// Device helpers shared by the decode kernels (the K <= 128 ones and replayssm_wide_kernel.cu
// for K > 128): offsets, the row's index values, the gate and beta exactly as semantics.md
// writes them.
#pragma once
#include <cmath>
#include <cstdint>

#include "kernels/dtype_convert.cuh"
#include "kernels/lane_columns.cuh"
#include "kernels/replayssm_params.hpp"
#include "kernels/row_status.hpp"

namespace kda::cuda::detail {

__host__ __device__ __forceinline__ int64_t min64(int64_t x, int64_t y) { return x < y ? x : y; }

__device__ __forceinline__ int64_t off4(const TensorRef& t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
  return i0 * t.stride[0] + i1 * t.stride[1] + i2 * t.stride[2] + i3 * t.stride[3];
}

__device__ __forceinline__ float sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }

// A row's slot, cursor and flags from its own index values (not the duplicate scan).
struct RowVerdict {
  int64_t slot = -1;
  int32_t cursor = 0;
  int32_t status = kRowOk;
  bool flush = false;
};

// kPlain (the plain packed decode): no write_pos, cursor 0, every row flushes.
template <bool kPlain = false>
__device__ __forceinline__ RowVerdict row_values(const ReplayParams& p, int64_t row) {
  RowVerdict r;
  r.slot = load_int(p.indices, row);
  if (r.slot < 0) {
    r.status = kRowPadding;
    return r;
  }
  if (r.slot >= p.slots) r.status |= kRowSlotOutOfRange;
  if constexpr (kPlain) {
    r.flush = true;
    return r;
  }
  r.cursor = reinterpret_cast<const int32_t*>(p.write_pos.ptr)[row * p.write_pos.stride[0]];
  if (r.cursor < 0 || r.cursor >= p.L) r.status |= kRowCursorOutOfRange;
  const bool forced =
      p.force_flush.ptr != nullptr &&
      reinterpret_cast<const int32_t*>(p.force_flush.ptr)[row * p.force_flush.stride[0]] != 0;
  r.flush = forced || r.cursor == p.L - 1;
  return r;
}

// A row's index values as loaded and not yet looked at: issue_row_loads() starts all three
// loads and row_verdict() judges them, so that a round's other loads issue in between
// (row_values() branches on the slot before it loads the cursor: two round trips in line).
// A padding row's cursor and flag are loaded too (write_pos and force_flush have B entries).
struct RowLoads {
  int64_t slot;
  int32_t cursor, forced;
};

template <bool kPlain = false>
__device__ __forceinline__ RowLoads issue_row_loads(const ReplayParams& p, int64_t row) {
  RowLoads l{load_int(p.indices, row), 0, 0};
  if constexpr (!kPlain) {
    l.cursor = reinterpret_cast<const int32_t*>(p.write_pos.ptr)[row * p.write_pos.stride[0]];
    if (p.force_flush.ptr != nullptr)
      l.forced = reinterpret_cast<const int32_t*>(p.force_flush.ptr)[row * p.force_flush.stride[0]];
  }
  return l;
}

// row_values()'s verdict from the loaded values.
template <bool kPlain = false>
__device__ __forceinline__ RowVerdict row_verdict(const ReplayParams& p, const RowLoads& l) {
  RowVerdict r;
  r.slot = l.slot;
  if (r.slot < 0) {
    r.status = kRowPadding;
    return r;
  }
  if (r.slot >= p.slots) r.status |= kRowSlotOutOfRange;
  if constexpr (kPlain) {
    r.flush = true;
    return r;
  }
  r.cursor = l.cursor;
  if (r.cursor < 0 || r.cursor >= p.L) r.status |= kRowCursorOutOfRange;
  r.flush = l.forced != 0 || r.cursor == p.L - 1;
  return r;
}

// A live row of a circular ring (ReplayParams::circular; circular-replay.md): where its
// window starts, and whether the step is a history checkpoint. Flags a base outside
// [0, L-1] as kRowCursorOutOfRange (the row is then rejected, and no slot is computed from it).
struct CircularRow {
  int32_t base = 0;
  bool history = false;  // natural (cursor L-1), not forced, L > 1: the state BEFORE the token, and an append
  // Ring slot of logical record j in [0, L): base + j < 2L for an accepted row, so one
  // compare-and-subtract is the modulo.
  __device__ __forceinline__ int64_t phys(int64_t j, int64_t L) const {
    const int64_t s = base + j;
    return s >= L ? s - L : s;
  }
};

// Ring slot of logical record j: ring.phys(j) on a circular ring, j on a linear one.
template <bool kCircular>
__device__ __forceinline__ int64_t ring_slot(const CircularRow& ring, int64_t j, int64_t L) {
  if constexpr (kCircular) return ring.phys(j, L);
  else return j;
}

__device__ __forceinline__ CircularRow circular_row(const ReplayParams& p, int64_t row, RowVerdict& r) {
  CircularRow c;
  if (r.slot < 0) return c;  // padding: cache_base is not read
  c.base = reinterpret_cast<const int32_t*>(p.cache_base.ptr)[row * p.cache_base.stride[0]];
  if (c.base < 0 || c.base >= p.L) r.status |= kRowCursorOutOfRange, c.base = 0;
  const bool forced = p.force_flush.ptr != nullptr &&
                      reinterpret_cast<const int32_t*>(p.force_flush.ptr)[row * p.force_flush.stride[0]] != 0;
  c.history = !forced && p.L > 1 && r.cursor == p.L - 1;
  return c;
}

// Whether an index among rows first, first + step, ... (< B) other than `row` names `slot`.
__device__ __forceinline__ bool slot_taken_elsewhere(const ReplayParams& p, int64_t row, int64_t slot, int64_t first,
                                                     int64_t step) {
  bool dup = false;
#pragma unroll 4
  for (int64_t other = first; other < p.B; other += step) dup |= other != row && load_int(p.indices, other) == slot;
  return dup;
}

// slot_taken_elsewhere() for a slot >= 0, its index loads issued 4 at a time before any is
// compared: one round trip per 4 rows a thread scans, not one per row (a comparison right
// after its load holds the next load back). B < 2^31 (the launcher bounds the grid).
__device__ __forceinline__ bool slot_taken_elsewhere_batched(const ReplayParams& p, int64_t row, int64_t slot,
                                                             int first, int step) {
  constexpr int kBatch = 4;
  bool dup = false;
#pragma unroll 1
  for (int64_t base = first; base < p.B; base += kBatch * step) {
    int64_t idx[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int64_t other = base + u * step;
      idx[u] = other < p.B ? load_int(p.indices, other) : -1;
    }
#pragma unroll
    for (int u = 0; u < kBatch; ++u) dup |= base + u * step != row && idx[u] == slot;
  }
  return dup;
}

__device__ __forceinline__ float head_A(const ReplayParams& p, int64_t hv) {
  return expf(load_float(p.A_log.ptr, hv * p.A_log.stride[0], p.A_log.dtype));
}

// g of a column from x = a + dt_bias and A = exp(A_log) (semantics.md: both gates).
__device__ __forceinline__ float gate_of(const ReplayParams& p, float x, float A) {
  if (p.has_lower_bound) return p.lower_bound * sigmoidf(A * x);
  return -A * (x <= 20.0f ? log1pf(expf(x)) : x);
}

// g of column c of (row, hv).
__device__ __forceinline__ float gate(const ReplayParams& p, int64_t row, int64_t hv, int64_t c, float A) {
  const float x = load_float(p.a.ptr, row * p.a.stride[0] + hv * p.a.stride[1] + c * p.a.stride[2], p.a.dtype) +
                  load_float(p.dt_bias.ptr, hv * p.dt_bias.stride[0] + c * p.dt_bias.stride[1], p.dt_bias.dtype);
  return gate_of(p, x, A);
}

// Stores the g record (slot, hv, cursor) of a lane's columns [c0, c0 + NC). A scalar gate
// (ReplayParams::scalar_gate) is one element: the lane of column 0 writes it, once; the
// other lanes hold the same value and write nothing (K writes to one address would race).
template <int NC>
__device__ __forceinline__ void store_gate_record(const ReplayParams& p, int64_t slot, int64_t hv, int64_t cursor,
                                                  int64_t c0, const float (&g)[NC]) {
  if (p.scalar_gate) {
    if (c0 == 0) store_float(p.g_cache.ptr, off4(p.g_cache, slot, hv, cursor, 0), kF32, g[0]);
    return;
  }
  store_cols(p.g_cache.ptr, kF32, off4(p.g_cache, slot, hv, cursor, c0), p.g_cache.stride[3], g);
}

// beta goes through b's dtype: a step function, so a one-ulp difference in the float32
// sigmoid next to a rounding midpoint would move beta by a whole ulp of that dtype. Take
// exp in double and round it (the correctly rounded float32 exp, as a CPU's expf gives),
// then the float32 operations of 1 / (1 + e), so beta matches a host float32 sigmoid.
__device__ __forceinline__ float beta_of(float b, int32_t b_dtype) {
  const float e = static_cast<float>(exp(-static_cast<double>(b)));
  return round_to(b_dtype, 1.0f / (1.0f + e));
}

// The plain packed decode's beta: the same float32 sigmoid, not rounded through b's dtype.
__device__ __forceinline__ float beta_plain(float b) {
  const float e = static_cast<float>(exp(-static_cast<double>(b)));
  return 1.0f / (1.0f + e);
}

template <bool kPlain = false>
__device__ __forceinline__ float head_beta(const ReplayParams& p, int64_t row, int64_t hv) {
  const float b = load_float(p.b.ptr, row * p.b.stride[0] + hv * p.b.stride[1], p.b.dtype);
  if constexpr (kPlain) return beta_plain(b);
  return beta_of(b, p.b.dtype);
}

// Element offsets of q, k (query head h) and v (value head hv) of a row in mixed_qkv.
struct QkvOffsets {
  int64_t q0, k0, v0;
};

__device__ __forceinline__ QkvOffsets qkv_offsets(const ReplayParams& p, int64_t row, int64_t hv, int64_t h) {
  const int64_t base = row * p.qkv.stride[0];  // the last dim has stride 1 (contract V2)
  return {base + h * p.K, base + p.H * p.K + h * p.K, base + 2 * p.H * p.K + hv * p.V};
}

}  // namespace kda::cuda::detail
