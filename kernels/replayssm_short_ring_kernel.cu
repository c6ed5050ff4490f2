// The ReplaySSM decode step on the GPU for K <= 128 and L <= 17 (at most 16 ring records:
// one staged chunk) on small grids, where a step is one CTA's latency chain and 8 warps of 16
// rows keep it short; replayssm_short_ring_4warp_kernel.cu is the same step on large grids
// (the launcher in replayssm_kernel.cu picks), replayssm_kernel.cu takes longer rings,
// replayssm_wide_kernel.cu K > 128 (docs/kernel-design.md).
//
// Why a kernel of its own: the long-ring kernel keeps a warp's 16 checkpoint rows in 64
// registers across every ring chunk of a flush, which caps it at 2 CTAs per SM; its memory
// rounds and barriers then stand in line with its arithmetic. With the whole ring in shared
// memory at once, a warp needs a row only while it works on it: a warp streams its 16 rows
// 4 at a time, from the CTA's tile in shared memory (16-bit states) or from registers one
// group ahead (float32): 80 registers, 3 CTAs per SM. And an append need not rebuild the
// state:
//   S_dec k = (S0 diag(exp(total) exp(g))) k + sum_j d_j (w_j . (exp(g) k)),
// the same for q*scale, so an append row costs two dot products with per-column weights plus
// one scalar per record (a_j = w_j . (exp(g) k), b_j = w_j . (exp(g) q scale), each computed
// once per CTA by one warp and shared through shared memory). A flush row is rebuilt (S0
// exp(total) + sum_j d_j w_j^T, then exp(g)), because its checkpoint must be written. w_j
// and d_j are rounded to out's dtype (the spec's rounding point) in both paths.
//
// Per CTA (one per (row, value head, 128 state rows); 8 warps of 16 rows; under the V split,
// one per 32 rows, 8 warps of 4):
//   1. memory round 1, every load issued before any value is used (one round trip, not one
//      per load): the row's index, cursor and force flag, per column thread q, k, a, dt_bias,
//      A_log; per row v; b; padding rows: zeros to out, return; the gate;
//   2. memory round 2: the ring records (cursor <= 16) into shared memory by cp.async, then
//      the checkpoint tile (16-bit) or each warp's first 4 rows (float32), the duplicate-slot
//      scan spread over the CTA; beta by one thread; one barrier with the duplicate verdict
//      once the ring has landed; rejected rows: zeros to out, return;
//   3. one thread per column: g, exp(g), exp(total), w_j; all threads: d_j; barrier (the
//      tile has landed); an append: record j's a_j and b_j by one warp, barrier;
//   4. each warp, 4 rows at a time: append: the dots with exp(total) exp(g) k and
//      exp(total) exp(g) q scale; flush: rebuild, decay, dots, and the new checkpoint rows
//      S + d k^T; then d = beta (v - S.k), o = S.(q scale) + d k.(q scale) -> out, and for an
//      append the ring records.
#include <atomic>
#include <type_traits>

#include "kernels/head_cta.cuh"
#include "kernels/lane_columns.cuh"
#include "kernels/register_rows.cuh"
#include "kernels/replayssm_device.cuh"
#include "kernels/short_ring_steps.cuh"
#include "kernels/warp_reduce.cuh"

namespace kda::cuda::detail {
namespace {

constexpr int kWarps = kCtaRows / kRowsPerWarp;  // 8 warps of 16 rows cover the CTA's 128
constexpr int kGroup = 4;  // rows a warp holds at a time

// A head split over more CTAs (the V split): 8 warps of kSplitWarpRows rows, a CTA of 32 rows,
// V / 32 CTAs per (row, value head), where the grid of 128-row CTAs would leave most of the
// GPU idle (short_ring_splits_heads()). On such grids a step is one warp's instruction chain
// (ncu, f32 plain decode at B = 1, 32 heads: 8.45 us, ~2,500 instructions a warp issued one
// every ~6.5 cycles, no eligible warp in 70% of cycles); 4 rows a warp instead of 16 took it
// to 6.6 us (the rows were ~2.4 us of it; the per-CTA work, repeated per CTA, bounds it now:
// docs/kernel-design.md).
constexpr int kSplitWarpRows = kGroup;
constexpr int kSplitMaxCtas = 384;  // one wave at 3 CTAs per SM on 132 SMs

// Where the checkpoint rows wait between their load and their use. In registers (float32
// states): each warp keeps the next group of 4 rows in flight while it computes one (2 KB per
// warp), a memory round trip per group. In shared memory (the tile, 16-bit states): the CTA's
// 128 rows x K copied by cp.async as soon as the slot is known, every byte in flight at once
// and no register held, then read with no memory round trip in the row loop. The tile made
// 16-bit appends and flushes faster than the register path; a float32 tile (64 KB) allows
// only 2 CTAs per SM and measured 20-28% slower, like a second float32 register group
// (docs/kernel-design.md).
template <int32_t SDT>
__host__ __device__ constexpr bool uses_tile() {
  return SDT != kF32;
}
// Shared memory of the tile: rows x K elements, packed (32 KB for K = 128, 16-bit).
template <int NC, int32_t SDT, int kRows>
__host__ __device__ constexpr int max_tile_bytes() {
  return uses_tile<SDT>() ? kRows * 32 * NC * 2 : 0;
}
// 3 CTAs of 8 warps per SM (80 registers, 35 KB of static shared memory plus the tile): 4 CTAs
// (64 registers) spill ~100-200 B and measured slower.
constexpr int kMinCtasPerSm = 3;

// SDT: the state's dtype, a template parameter so the checkpoint rows (most of the bytes)
// move as straight vector accesses.
// kPlain: the plain packed decode (ReplayParams::plain).
// kWarpRows: a warp's rows, kRowsPerWarp (a CTA of 128 rows) or kSplitWarpRows (the V split).
template <int NC, int32_t SDT, bool kPlain, int kWarpRows>
__global__ void __launch_bounds__(kWarps * 32, kMinCtasPerSm) replayssm_short_ring_kernel(const ReplayParams p) {
  constexpr int kGroups = kWarpRows / kGroup;
  __shared__ __align__(16) HeadShared sh;
  extern __shared__ __align__(16) char rows_tile[];  // the tile: the CTA's checkpoint rows [cta_rows][K]
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const CtaPlace place = cta_place<kWarps * kWarpRows>(p);
  const int vc = place.vc, hv = place.hv, row = place.row, h = place.h, cta_rows = place.cta_rows;
  const int64_t v_base = place.v_base;
  const int nrows = min(kWarpRows, cta_rows - warp * kWarpRows);  // <= 0: a warp that only fills columns
  const int64_t v_first = v_base + warp * kWarpRows;
  const int64_t out_row = static_cast<int64_t>(row) * p.out.stride[0] + hv * p.out.stride[1];
  const int c0 = lane * NC;
  const bool active = c0 < p.K;  // K < 32: lanes past K hold zeros
  const int my_row = lane >> 1;  // in the results: lane 2i holds row i's S.k, lane 2i+1 its S.(q scale)
  const bool column = tid < p.K;  // thread tid computes column tid's per-head values

  // Memory round 1: every load that does not depend on the slot, all issued before any value
  // is used (raw bits, converted once the index has landed).
  const QkvOffsets qkv = qkv_offsets(p, row, hv, h);
  const RowLoads row_loads = issue_row_loads<kPlain>(p, row);
  uint32_t q_bits = 0, k_bits = 0, a_bits = 0, dt_bits = 0, A_log_bits = 0, v_bits = 0, b_bits = 0;
  if (column) {
    A_log_bits = load_bits(p.A_log.ptr, hv * p.A_log.stride[0], p.A_log.dtype);
    q_bits = load_bits(p.qkv.ptr, qkv.q0 + tid, p.qkv.dtype);
    k_bits = load_bits(p.qkv.ptr, qkv.k0 + tid, p.qkv.dtype);
    a_bits = load_bits(p.a.ptr, row * p.a.stride[0] + hv * p.a.stride[1] + tid * p.a.stride[2], p.a.dtype);
    dt_bits = load_bits(p.dt_bias.ptr, hv * p.dt_bias.stride[0] + tid * p.dt_bias.stride[1], p.dt_bias.dtype);
  }
  if (lane < nrows) v_bits = load_bits(p.qkv.ptr, qkv.v0 + v_first + lane, p.qkv.dtype);  // lane i: row i's v
  if (tid == blockDim.x - 1) b_bits = load_bits(p.b.ptr, row * p.b.stride[0] + hv * p.b.stride[1], p.b.dtype);
  RowVerdict r = row_verdict<kPlain>(p, row_loads);
  if (r.status == kRowPadding) {
    zero_out_rows(p, out_row, v_first, nrows, lane);
    publish_row_status(p, row, hv, vc, r.status);
    return;
  }
  float q_raw = 0.0f, k_raw = 0.0f, gate_c = 0.0f;
  if (column) {
    q_raw = bits_to_float(q_bits, p.qkv.dtype);
    k_raw = bits_to_float(k_bits, p.qkv.dtype);
    const float x = bits_to_float(a_bits, p.a.dtype) + bits_to_float(dt_bits, p.dt_bias.dtype);
    gate_c = gate_of(p, x, expf(bits_to_float(A_log_bits, p.A_log.dtype)));
  }
  const float v_raw = bits_to_float(v_bits, p.qkv.dtype);
  __shared__ float beta_sh;  // beta of (row, hv), computed once for the CTA

  // Memory round 2: the warp's first rows into registers, the ring records into shared
  // memory (only for a slot and cursor inside the tensors).
  constexpr int se = float_dtype_bytes(SDT);
  WarpRows w{};
  w.row = p.state.stride[2];
  w.col = p.state.stride[3];
  w.off = r.status == kRowOk ? off4(p.state, r.slot, hv, v_first, c0) : 0;
  w.at = p.state.ptr + w.off * se;
  w.row_bytes = w.row * se;
  // Vector rows: contiguous columns and every row's lane segment aligned to NC elements.
  w.vec = w.col == 1 && (reinterpret_cast<uintptr_t>(w.at) % (NC * se)) == 0 && (w.row_bytes % (NC * se)) == 0;
  constexpr bool tile = uses_tile<SDT>();
  const bool rows_here = r.status == kRowOk && active && !tile;
  constexpr int words = raw_words<NC, SDT>();
  uint32_t ahead[kGroup][words];  // register path: the group after the one computing, loading
  load_group<NC, SDT, kGroup>(p, w, 0, rows_here ? nrows : 0, ahead);
  if (r.status == kRowOk) stage_records(p, sh.ring, r.slot, hv, h, v_base, cta_rows, 0, r.cursor);
  const bool dup = slot_taken_elsewhere_batched(p, row, r.slot, tid, blockDim.x);
  const int tile_pitch = static_cast<int>(p.K) * se;  // bytes of a row in rows_tile
  // The tile after the ring, in a group of its own: the column pass waits for the ring only.
  cp_async_commit();
  if (tile && r.status == kRowOk) {
    const char* tile_src = p.state.ptr + off4(p.state, r.slot, hv, v_base, 0) * se;
    if (p.state_dense)
      copy_rows16(rows_tile, tile_pitch, tile_src, p.state.stride[2] * se, cta_rows, __ffs(tile_pitch / 16) - 1);
    else
      stage_block({tile_src, p.state.stride[2], p.state.stride[3], cta_rows, static_cast<int>(p.K), se, rows_tile,
                   tile_pitch});
  }
  cp_async_commit();
  // beta (a double exp) by one thread that computes no column, while the copies land.
  if (tid == blockDim.x - 1) {
    const float b_raw = bits_to_float(b_bits, p.b.dtype);
    if constexpr (kPlain) beta_sh = beta_plain(b_raw);
    else beta_sh = beta_of(b_raw, p.b.dtype);
  }
  cp_async_wait_prior<1>();
  if (__syncthreads_or(dup)) r.status |= kRowDuplicateSlot;
  publish_row_status(p, row, hv, vc, r.status);
  if (r.status != kRowOk) {  // rejected: zeros to out, nothing else (the tile's copies land first)
    cp_async_wait_all();
    zero_out_rows(p, out_row, v_first, nrows, lane);
    return;
  }

  const int32_t od = p.out.dtype;
  const int jn = r.cursor;  // <= kRecordChunk (the launcher sends L <= 17 here)
  if (column) {
    const int c = tid;
    sh.q[c] = q_raw;
    sh.k[c] = k_raw;
    sh.g[c] = gate_c;
    sh.eg[c] = expf(gate_c);
    // Unrolled over the chunk's 16 slots (guarded by jn) so that the records' loads and
    // exps overlap instead of standing in line.
    float gj[kRecordChunk], total = 0.0f, prefix = 0.0f;
    load_staged_gates(p, sh.ring, c, jn, gj);
#pragma unroll
    for (int j = 0; j < kRecordChunk; ++j) total += gj[j];
    sh.etot[c] = expf(total);
    const int32_t kd = p.k_cache.dtype;
#pragma unroll
    for (int j = 0; j < kRecordChunk; ++j) {
      if (j >= jn) break;
      prefix += gj[j];
      sh.ring.g[j][c] = round_to(od, load_float(sh.ring.k_raw[j], c, kd) * expf(total - prefix));
    }
  }
  round_staged_deltas(p, od, sh, jn, cta_rows, __ffs(cta_rows) - 1);
  cp_async_wait_all();
  __syncthreads();

  // The token's columns of this lane (every warp: those without rows help with the records).
  float qs[NC], kn[NC], et[NC], eg[NC], kq, k_norm = 1.0f;
  {
    float q[NC], k[NC];
    load_shared_cols(sh.q, c0, active, q);
    load_shared_cols(sh.k, c0, active, k);
    float q_norm = 1.0f;
    if (p.l2norm) {
      float qq = 0.0f, kk = 0.0f;
#pragma unroll
      for (int n = 0; n < NC; ++n) qq += q[n] * q[n], kk += k[n] * k[n];
      q_norm = sqrtf(warp_sum(qq) + 1e-6f);
      k_norm = sqrtf(warp_sum(kk) + 1e-6f);
    }
    float part = 0.0f;
#pragma unroll
    for (int n = 0; n < NC; ++n) {
      qs[n] = q[n] / q_norm * p.scale;
      kn[n] = k[n] / k_norm;
      part += kn[n] * qs[n];
    }
    kq = warp_sum(part);
    load_shared_cols(sh.etot, c0, active, et);
    load_shared_cols(sh.eg, c0, active, eg);
  }
  const float beta = beta_sh;

  // An append's per-record coefficients a_j = w_j . (exp(g) k) and b_j = w_j . (exp(g) q
  // scale): every warp needs all of them, so each is computed once, by warp j mod the CTA's
  // warps (cta_threads(): as few as one for a small head), and shared (a block-uniform
  // branch: r.flush is the CTA's).
  __shared__ float2 coef_sh[kRecordChunk];
  if (!r.flush) {
    const int warps = static_cast<int>(blockDim.x >> 5);
    for (int j = warp; j < jn; j += warps) {
      float wj[NC], ab[2] = {0.0f, 0.0f};
      load_shared_cols(sh.ring.g[j], c0, active, wj);
#pragma unroll
      for (int n = 0; n < NC; ++n) {
        const float we = wj[n] * eg[n];
        ab[0] += we * kn[n], ab[1] += we * qs[n];
      }
      const float sum = warp_reduce_scatter(ab);  // lane 0: a_j, lane 1: b_j
      if (lane == 0) coef_sh[j].x = sum;
      if (lane == 1) coef_sh[j].y = sum;
    }
    __syncthreads();
  }
  if (nrows <= 0) return;

  // The warp's rows, 4 at a time, the next groups loading meanwhile. Returns lane l's dot
  // (row l/2 of the warp: S.k for l even, S.(q scale) for l odd) over the columns' weights
  // x, y; a flush (kFlush) first rebuilds each row and writes the new checkpoint rows.
  // Two instances, so that each keeps only its own per-column values live.
  auto stream_rows = [&](auto flush_tag, const float(&x)[NC], const float(&y)[NC]) {
    constexpr bool kFlush = decltype(flush_tag)::value;
    float dot = 0.0f;
#pragma unroll 1
    for (int gi = 0; gi < kGroups; ++gi) {
      const int first = gi * kGroup, n = min(kGroup, nrows - first);
      if (n <= 0) break;
      float S[kGroup][NC];
      if constexpr (tile) {
        const char* at = rows_tile + (warp * kWarpRows + first) * tile_pitch + c0 * se;
#pragma unroll
        for (int rr = 0; rr < kGroup; ++rr, at += tile_pitch) {
          uint32_t raw[words] = {};
          if (rr < n && active) load_raw<NC, SDT>(at, raw);
          unpack_raw<NC, SDT>(raw, S[rr]);
        }
      } else {
#pragma unroll
        for (int rr = 0; rr < kGroup; ++rr) unpack_raw<NC, SDT>(ahead[rr], S[rr]);
        const int ahead_first = first + kGroup;
        load_group<NC, SDT, kGroup>(p, w, ahead_first, active ? nrows - ahead_first : 0, ahead);
      }
      if constexpr (kFlush) {
#pragma unroll
        for (int rr = 0; rr < kGroup; ++rr)
#pragma unroll
          for (int c = 0; c < NC; ++c) S[rr][c] *= et[c];
        for (int j = 0; j < jn; ++j) {
          float wj[NC];
          load_shared_cols(sh.ring.g[j], c0, active, wj);
          const float4 d4 = *reinterpret_cast<const float4*>(&sh.d[j][warp * kWarpRows + first]);
          const float dr[kGroup] = {d4.x, d4.y, d4.z, d4.w};
#pragma unroll
          for (int rr = 0; rr < kGroup; ++rr)
#pragma unroll
            for (int c = 0; c < NC; ++c) S[rr][c] = fmaf(dr[rr], wj[c], S[rr][c]);
        }
#pragma unroll
        for (int rr = 0; rr < kGroup; ++rr)
#pragma unroll
          for (int c = 0; c < NC; ++c) S[rr][c] *= eg[c];
      }
      const float red = row_dots(S, x, y);  // lane l: group row (l & 7) / 2
      if ((lane >> 3) == gi) dot = red;         // the group's rows are the warp's rows 4 gi .. 4 gi + 3
      if constexpr (kFlush) {  // the new checkpoint rows S + d k^T (d exactly as the output below computes it)
        const float dl = beta * (__shfl_sync(kFullMask, v_raw, first + ((lane & 7) >> 1)) - red);
#pragma unroll
        for (int rr = 0; rr < kGroup; ++rr) {
          const float d = __shfl_sync(kFullMask, dl, 2 * rr);
          if (rr >= n || !active) continue;
          float s[NC];
#pragma unroll
          for (int c = 0; c < NC; ++c) s[c] = fmaf(d, kn[c], S[rr][c]);
          if (w.vec) store_cols_aligned<NC, SDT>(w.at + (first + rr) * w.row_bytes, s);
          else store_cols(p.state.ptr, SDT, w.off + (first + rr) * w.row, w.col, s);
        }
      }
    }
    return dot;
  };

  float dot, records = 0.0f;
  if (r.flush) {
    dot = stream_rows(std::true_type{}, kn, qs);
  } else {
    // The records' part of lane l's dot (a_j for l even, b_j for l odd); then the
    // checkpoint's per-column weights.
    const bool row_here = my_row < nrows;
#pragma unroll
    for (int j = 0; j < kRecordChunk; ++j) {
      if (j >= jn) break;
      const float2 ab = coef_sh[j];
      if (row_here) records = fmaf(sh.d[j][warp * kWarpRows + my_row], (lane & 1) ? ab.y : ab.x, records);
    }
    float x[NC], y[NC];
#pragma unroll
    for (int n = 0; n < NC; ++n) {
      const float e = et[n] * eg[n];
      x[n] = e * kn[n], y[n] = e * qs[n];
    }
    dot = stream_rows(std::false_type{}, x, y);
  }

  const float full = dot + records;
  const float sq = __shfl_down_sync(kFullMask, full, 1);
  const float v_mine = __shfl_sync(kFullMask, v_raw, my_row);
  float d = 0.0f;
  if ((lane & 1) == 0 && my_row < nrows) {
    const int64_t v = v_first + my_row;
    d = beta * (v_mine - full);
    store_row_results(p, r.flush, r.slot, hv, r.cursor, out_row, v, sq, d, kq);
  }
  if (r.flush || vc != 0 || warp != 0 || !active) return;  // one warp per (row, head) writes the g record
  float g[NC];
  load_shared_cols(sh.g, c0, active, g);
  store_gate_record(p, r.slot, hv, r.cursor, c0, g);
  if (hv % (p.HV / p.H) == 0) {  // one value head per query-head group writes the shared key
    float k[NC];  // reloaded: kn is not kept live across the rows
    load_shared_cols(sh.k, c0, active, k);
#pragma unroll
    for (int n = 0; n < NC; ++n) k[n] /= k_norm;
    store_cols(p.k_cache.ptr, p.k_cache.dtype, off4(p.k_cache, r.slot, h, r.cursor, c0), p.k_cache.stride[3], k);
  }
}

template <bool kPlain, int kWarpRows>
cudaError_t launch_short_ring(const ReplayParams& p, cudaStream_t stream) {
  constexpr int kRows = kWarps * kWarpRows;
  return launch_instantiation(p, [&](auto nc, auto sdt) {
    constexpr int NC = decltype(nc)::value;
    constexpr int32_t SDT = decltype(sdt)::value;
    const auto kernel = replayssm_short_ring_kernel<NC, SDT, kPlain, kWarpRows>;
    constexpr int max_tile = max_tile_bytes<NC, SDT, kRows>();
    int tile = 0;
    if constexpr (max_tile > 0) {
      // Shared memory past 48 KB per CTA must be allowed once per kernel and device (the
      // largest tile of this instantiation); the carveout asks for the most shared memory.
      static std::atomic<uint64_t> allowed{0};
      const auto allow = [&] {
        if (const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, max_tile);
            e != cudaSuccess)
          return e;
        return cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutMaxShared);
      };
      if (const cudaError_t e = once_per_device(allowed, allow); e != cudaSuccess) return e;
      tile = static_cast<int>(min64(kRows, p.V) * p.K) * float_dtype_bytes(SDT);
    }
    const int64_t blocks = p.B * p.HV * ((p.V + kRows - 1) / kRows);
    kernel<<<static_cast<unsigned>(blocks), cta_threads(p, kWarpRows, kRows), tile, stream>>>(p);
    return cudaGetLastError();
  });
}

}  // namespace

bool short_ring_splits_heads(const ReplayParams& p) {
  const int64_t split_rows = kWarps * kSplitWarpRows;
  return p.V >= 2 * split_rows && p.V % split_rows == 0 && p.B * p.HV * (p.V / split_rows) <= kSplitMaxCtas;
}

cudaError_t launch_replayssm_short_ring(const ReplayParams& p, cudaStream_t stream) {
  // The runtime choices made compile-time ones, here only: a warp's rows (the V split or
  // not), then the plain decode or the ring step.
  const auto with_rows = [&](auto warp_rows) {
    constexpr int kRows = decltype(warp_rows)::value;
    return p.plain ? launch_short_ring<true, kRows>(p, stream) : launch_short_ring<false, kRows>(p, stream);
  };
  return short_ring_splits_heads(p) ? with_rows(std::integral_constant<int, kSplitWarpRows>{})
                                    : with_rows(std::integral_constant<int, kRowsPerWarp>{});
}

}  // namespace kda::cuda::detail
