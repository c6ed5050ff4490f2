// The ReplaySSM decode step on the GPU for K <= 128 and rings longer than one staged chunk
// (L > 17), and the launch dispatch of every kernel: L <= 17 goes to
// replayssm_short_ring_kernel.cu or its 4-warp form (short_ring_4warp_pays()), K > 128 to
// replayssm_wide_kernel.cu (docs/kernel-design.md).
//
// One CTA per (row, value head, 128 state rows): up to 8 warps of 16 rows each. Lane l of
// a warp owns columns [l*NC, l*NC + NC) (NC = K/32, at most 4) of its 16 rows, so each state
// row is read and written by the warp as one contiguous 16-/8-byte-per-lane span
// (lane_columns.cuh). A flush holds its rows in registers from the checkpoint load to the
// checkpoint store (the rebuild of every ring chunk needs them); an append asks L2 for them
// at round 2 and loads them after the ring, holding no register for them meanwhile.
//
// What is the same for every state row of the head is computed once per CTA, one column
// per thread, into shared memory: q, k, the gate g and exp(g), the ring gate sums and
// exp(total), the decayed ring keys w_j = k_j exp(total - prefix_j) and the ring deltas d_j
// (both rounded to out's dtype: the spec's rounding point). A flush rebuilds its rows: per
// record one 16-byte shared load of w_j, four broadcast loads of d_j and 16 x NC FMAs per
// lane (a product of two bf16/f16 values is exact in float32, so FMA accumulation is the
// tensor-core dot up to summation order). An append leaves the checkpoint unchanged, so it
// needs only S_dec k and S_dec q: per record two scalars a_j = w_j . (exp(g) k) and
// b_j = w_j . (exp(g) q scale), once per CTA, and per row sum_j d_j a_j.
//
// Per CTA:
//   1. the row's slot / cursor / flush; the checkpoint loads (a flush) or L2 prefetches (an
//      append) issued at once; the duplicate-slot scan spread over the CTA (first barrier);
//      padding or rejected rows: zeros to out and return;
//   2. per chunk of 16 ring records: column threads fill w_j, all threads fill d_j;
//      barrier; each warp: norms and k.(q scale) from shared q, k (first chunk); a flush:
//      S0 scaled by exp(total), rank update; an append: a_j and b_j by warp j mod the warps,
//      barrier, each row's sum of d_j a_j (and d_j b_j);
//   3. a flush: decay by exp(g), S.k and S.(q scale) of the warp's 16 rows in one transposed
//      warp reduction; an append: its rows loaded now, the same reduction of S0 against
//      exp(total) exp(g) k and exp(total) exp(g) q scale, plus the records' sums;
//      d = beta (v - S.k), o = S.(q scale) + d k.(q scale) -> out;
//   4. flush: checkpoint S + d k^T from registers; append: d at the cursor, and from warp 0
//      of the head's first CTA g (and the key once per query-head group).
#include <cmath>

#include "kernels/head_cta.cuh"
#include "kernels/lane_columns.cuh"
#include "kernels/register_rows.cuh"
#include "kernels/replayssm_device.cuh"
#include "kernels/warp_reduce.cuh"

namespace kda::cuda::detail {
namespace {

constexpr int kRowsPerCta = kCtaRows;
constexpr int kMaxWarps = kRowsPerCta / kRowsPerWarp;
constexpr int kMaxK = kCtaMaxK;

// SDT: the state's dtype, a template parameter so the checkpoint rows (most of the bytes)
// move as straight vector accesses without per-row dtype or alignment decisions.
// kCircular: a circular ring (ReplayParams::circular), at every L: records read at ring slots
// (cache_base + j) mod L, the record appended at the cursor's slot, and a history checkpoint
// (ring.history) rebuilds as a flush does, stores that state before the token's decay, and
// appends the record instead of folding it.
template <int NC, int32_t SDT, bool kCircular = false>
__global__ void __launch_bounds__(kMaxWarps * 32, 2) replayssm_step_kernel(const ReplayParams p) {
  __shared__ __align__(16) HeadShared sh;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const CtaPlace place = cta_place(p);
  const int vc = place.vc, hv = place.hv, row = place.row, h = place.h, cta_rows = place.cta_rows;
  const int64_t v_base = place.v_base;
  const int nrows = min(kRowsPerWarp, cta_rows - warp * kRowsPerWarp);  // <= 0: a warp that only fills columns
  const int64_t v_first = v_base + warp * kRowsPerWarp;
  const int64_t out_row = static_cast<int64_t>(row) * p.out.stride[0] + hv * p.out.stride[1];
  const int c0 = lane * NC;
  const bool active = c0 < p.K;  // K < 32: lanes past K hold zeros
  const int my_row = lane >> 1;  // after the row reduction: lane 2i holds row i's S.k, lane 2i+1 its S.q
  const bool column = tid < p.K;  // thread tid computes column tid's per-head values

  // Memory round 1: everything that does not depend on the slot, all in flight together.
  const QkvOffsets qkv = qkv_offsets(p, row, hv, h);
  RowVerdict r = row_values(p, row);
  CircularRow ring;  // a history checkpoint keeps r.flush until its rows are rebuilt and stored
  if constexpr (kCircular) ring = circular_row(p, row, r);
  float q_raw = 0.0f, k_raw = 0.0f, gate_c = 0.0f, v_raw = 0.0f, b_raw = 0.0f;
  if (column) {
    q_raw = load_float(p.qkv.ptr, qkv.q0 + tid, p.qkv.dtype);
    k_raw = load_float(p.qkv.ptr, qkv.k0 + tid, p.qkv.dtype);
    gate_c = gate(p, row, hv, tid, head_A(p, hv));
  }
  if ((lane & 1) == 0 && my_row < nrows) {
    v_raw = load_float(p.qkv.ptr, qkv.v0 + v_first + my_row, p.qkv.dtype);
    b_raw = load_float(p.b.ptr, row * p.b.stride[0] + hv * p.b.stride[1], p.b.dtype);
  }
  const bool dup = r.slot >= 0 && slot_taken_elsewhere(p, row, r.slot, tid, blockDim.x);
  if (r.status == kRowPadding) {
    zero_out_rows(p, out_row, v_first, nrows, lane);
    publish_row_status(p, row, hv, vc, r.status);
    return;
  }

  // Memory round 2: the checkpoint rows into registers, the first ring chunk into shared
  // memory (only for a slot and cursor inside the tensors).
  float S[kRowsPerWarp][NC];
#pragma unroll
  for (int rr = 0; rr < kRowsPerWarp; ++rr)
#pragma unroll
    for (int n = 0; n < NC; ++n) S[rr][n] = 0.0f;
  constexpr int se = float_dtype_bytes(SDT);
  const int64_t s_row = p.state.stride[2], s_col = p.state.stride[3];
  const int64_t s0 = r.status == kRowOk ? off4(p.state, r.slot, hv, v_first, c0) : 0;
  // Vector rows: contiguous columns and every row's lane segment aligned to NC elements.
  const bool s_vec = s_col == 1 && (reinterpret_cast<uintptr_t>(p.state.ptr + s0 * se) % (NC * se)) == 0 &&
                     (s_row * se) % (NC * se) == 0;
  char* const s_at = p.state.ptr + s0 * se;
  const int64_t s_row_bytes = s_row * se;
  // A flush holds its rows in registers across the ring (the rebuild needs them); an append
  // needs them only for its two dots after the ring, so it asks L2 for them now and loads
  // them then, and holds no register meanwhile.
  const auto load_rows = [&] {
#pragma unroll
    for (int rr = 0; rr < kRowsPerWarp; ++rr) {
      if (rr >= nrows) break;
      if (s_vec) load_cols_aligned<NC, SDT>(s_at + rr * s_row_bytes, S[rr]);
      else load_cols(p.state.ptr, SDT, s0 + rr * s_row, s_col, S[rr]);
    }
  };
  if (r.status == kRowOk) {
    if (active && r.flush) load_rows();
    if (active && !r.flush)
      for (int rr = 0; rr < nrows; ++rr) prefetch_l2(p.state.ptr + (s0 + rr * s_row) * se);
    if constexpr (kCircular) stage_circular_records(p, sh.ring, r.slot, hv, h, v_base, cta_rows, 0, min(kRecordChunk, r.cursor), ring);
    else stage_records(p, sh.ring, r.slot, hv, h, v_base, cta_rows, 0, min(kRecordChunk, r.cursor));
  }
  cp_async_wait_all();
  if (__syncthreads_or(dup)) r.status |= kRowDuplicateSlot;
  publish_row_status(p, row, hv, vc, r.status);
  if (r.status != kRowOk) {  // rejected: zeros to out, nothing else
    zero_out_rows(p, out_row, v_first, nrows, lane);
    return;
  }

  const int32_t od = p.out.dtype;
  float total = 0.0f, prefix = 0.0f;  // column thread: its column's ring gate sum and running prefix
  if (column) {
    const int c = tid;
    sh.q[c] = q_raw;
    sh.k[c] = k_raw;
    sh.g[c] = gate_c;
    sh.eg[c] = expf(gate_c);
    if (r.cursor <= kRecordChunk) {
      // A scalar gate's records are read from gs by broadcast, KDA's from g's column (uniform branch).
      if (p.scalar_gate)
        for (int j = 0; j < r.cursor; ++j) total += sh.ring.gs[j];
      else
        for (int j = 0; j < r.cursor; ++j) total += sh.ring.g[j][c];
    } else {  // beyond the first chunk: the sum over the whole ring, in record order
      // Loads issued kGateBatch at a time before any is added (one round trip per batch, not
      // per record); the zeros past the cursor add nothing.
      constexpr int kGateBatch = 8;
      const float* g_col = reinterpret_cast<const float*>(p.g_cache.ptr) + off4(p.g_cache, r.slot, hv, 0, c);
      const int64_t g_step = p.g_cache.stride[2];
      for (int jb = 0; jb < r.cursor; jb += kGateBatch) {
        float gj[kGateBatch];
#pragma unroll
        for (int u = 0; u < kGateBatch; ++u) gj[u] = jb + u < r.cursor ? g_col[ring_slot<kCircular>(ring, jb + u, p.L) * g_step] : 0.0f;
#pragma unroll
        for (int u = 0; u < kGateBatch; ++u) total += gj[u];
      }
    }
    sh.etot[c] = expf(total);
  }

  float qs[NC], kn[NC], kq = 0.0f;
  // An append: lane 2i's sum over the records of d_j(row i) a_j, lane 2i+1's of d_j(row i) b_j.
  float records = 0.0f;
  __shared__ float2 coef_sh[kRecordChunk];  // an append's a_j, b_j of the chunk's records
  const int lg_rows = __ffs(cta_rows) - 1;
  for (int jc = 0;; jc += kRecordChunk) {
    const int jn = min(kRecordChunk, r.cursor - jc);
    if (jc > 0) {
      __syncthreads();  // the previous chunk is consumed
      if constexpr (kCircular) stage_circular_records(p, sh.ring, r.slot, hv, h, v_base, cta_rows, jc, jn, ring);
      else stage_records(p, sh.ring, r.slot, hv, h, v_base, cta_rows, jc, jn);
      cp_async_wait_all();
      __syncthreads();
    }
    if (column) {
      const int c = tid;
      const auto decay_keys = [&](auto gate_of) {  // the loop once per gate layout (uniform branch below)
        for (int j = 0; j < jn; ++j) {
          prefix += gate_of(j);
          sh.ring.g[j][c] = round_to(od, load_float(sh.ring.k_raw[j], c, p.k_cache.dtype) * expf(total - prefix));
        }
      };
      if (p.scalar_gate) decay_keys([&](int j) { return sh.ring.gs[j]; });
      else decay_keys([&](int j) { return sh.ring.g[j][c]; });
    }
    round_staged_deltas(p, od, sh, jn, cta_rows, lg_rows);
    __syncthreads();
    // The token's columns of this lane (a flush: the warps with rows; an append: every warp,
    // for the coefficients).
    const auto token_columns = [&] {
      float q[NC], k[NC];
      load_shared_cols(sh.q, c0, active, q);
      load_shared_cols(sh.k, c0, active, k);
      float q_norm = 1.0f, k_norm = 1.0f;
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
    };
    if (r.flush) {  // the rebuild: every record into the warp's register rows (a block-uniform branch)
      if (nrows > 0) {
        if (jc == 0) {
          token_columns();
          if (r.cursor > 0) {  // the rebuild's starting point
            float et[NC];
            load_shared_cols(sh.etot, c0, active, et);
            scale_columns(S, et);
          }
        }
        for (int j = 0; j < jn; ++j) {
          float w[NC];
          load_shared_cols(sh.ring.g[j], c0, active, w);
          add_record(S, &sh.d[j][warp * kRowsPerWarp], w);
        }
      }
    } else {
      // An append leaves the checkpoint as it is, so its rows need only S_dec k and S_dec q:
      //   S_dec k = (S0 diag(exp(total) exp(g))) k + sum_j d_j a_j,  a_j = w_j . (exp(g) k),
      // the same for q scale with b_j: one scalar pair per record, computed once per CTA by
      // warp j mod the warps, instead of a rank-1 update of every register row per record.
      if (jc == 0) token_columns();
      const int warps = static_cast<int>(blockDim.x >> 5);
      for (int j = warp; j < jn; j += warps) {
        float wj[NC], eg[NC], ab[2] = {0.0f, 0.0f};
        load_shared_cols(sh.ring.g[j], c0, active, wj);
        load_shared_cols(sh.eg, c0, active, eg);
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
      if (my_row < nrows) {
        const float* d_row = &sh.d[0][warp * kRowsPerWarp + my_row];
#pragma unroll
        for (int j = 0; j < kRecordChunk; ++j) {  // unrolled: the shared loads issue ahead of the sums
          if (j >= jn) break;
          const float2 ab = coef_sh[j];
          records = fmaf(d_row[j * kCtaRows], (lane & 1) ? ab.y : ab.x, records);
        }
      }
    }
    if (jc + kRecordChunk >= r.cursor) break;
    __syncthreads();  // this chunk's w, d and coefficients are consumed before the next chunk overwrites them
  }
  if (nrows <= 0) return;

  float eg[NC];
  load_shared_cols(sh.eg, c0, active, eg);
  float dot;  // lane 2i: row i's S.k, lane 2i+1: its S.(q scale)
  if (r.flush) {
    if constexpr (kCircular) {
      if (ring.history && active) {  // the checkpoint: the rebuilt state before the token's decay
#pragma unroll
        for (int rr = 0; rr < kRowsPerWarp; ++rr) {
          if (rr >= nrows) break;
          if (s_vec) store_cols_aligned<NC, SDT>(s_at + rr * s_row_bytes, S[rr]);
          else store_cols(p.state.ptr, SDT, s0 + rr * s_row, s_col, S[rr]);
        }
      }
    }
    scale_columns(S, eg);
    dot = row_dots(S, kn, qs);
    if constexpr (kCircular) {
      if (ring.history) r.flush = false;  // from here on an append: d, g and k records at the cursor's slot
    }
  } else {  // the checkpoint's rows against per-column weights exp(total) exp(g) k and exp(total) exp(g) q scale
    if (active) load_rows();
    float et[NC], x[NC], y[NC];
    load_shared_cols(sh.etot, c0, active, et);
#pragma unroll
    for (int n = 0; n < NC; ++n) {
      const float e = et[n] * eg[n];
      x[n] = e * kn[n], y[n] = e * qs[n];
    }
    dot = row_dots(S, x, y) + records;
  }
  const float sq = __shfl_down_sync(kFullMask, dot, 1);
  float d = 0.0f;
  if ((lane & 1) == 0 && my_row < nrows) {
    const int64_t v = v_first + my_row;
    d = beta_of(b_raw, p.b.dtype) * (v_raw - dot);
    store_float(p.out.ptr, out_row + v * p.out.stride[2], p.out.dtype, sq + d * kq);
    if (!r.flush)
      store_float(p.d_cache.ptr, off4(p.d_cache, r.slot, hv, ring_slot<kCircular>(ring, r.cursor, p.L), v),
                  p.d_cache.dtype, d);
  }

  if (!r.flush) {
    if (vc != 0 || warp != 0 || !active) return;  // one warp per (row, head) writes the g record
    float g[NC];
    load_shared_cols(sh.g, c0, active, g);
    const int64_t at = ring_slot<kCircular>(ring, r.cursor, p.L);  // the appended record's slot
    store_gate_record(p, r.slot, hv, at, c0, g);
    if (hv % (p.HV / p.H) == 0)  // one value head per query-head group writes the shared key
      store_cols(p.k_cache.ptr, p.k_cache.dtype, off4(p.k_cache, r.slot, h, at, c0), p.k_cache.stride[3], kn);
    return;
  }

  float dr[kRowsPerWarp];
#pragma unroll
  for (int rr = 0; rr < kRowsPerWarp; ++rr) dr[rr] = __shfl_sync(kFullMask, d, 2 * rr);
  if (!active) return;
#pragma unroll
  for (int rr = 0; rr < kRowsPerWarp; ++rr) {
    if (rr >= nrows) break;
    float x[NC];
#pragma unroll
    for (int n = 0; n < NC; ++n) x[n] = fmaf(dr[rr], kn[n], S[rr][n]);
    if (s_vec) store_cols_aligned<NC, SDT>(s_at + rr * s_row_bytes, x);
    else store_cols(p.state.ptr, SDT, s0 + rr * s_row, s_col, x);
  }
}

}  // namespace

int64_t replayssm_blocks(const ReplayParams& p) {
  if (p.K > kMaxK) return replayssm_wide_blocks(p);
  return p.B * p.HV * ((p.V + kRowsPerCta - 1) / kRowsPerCta);
}

cudaError_t launch_replayssm(const ReplayParams& p, cudaStream_t stream) {
  if (replayssm_blocks(p) == 0) return cudaSuccess;  // HV = 0: no head, nothing to read or write
  if (p.circular) return launch_replayssm_circular(p, stream);
  if (p.K > kMaxK) return launch_replayssm_wide(p, stream);
  if (p.L <= kRecordChunk + 1)  // the whole ring in one chunk
    return short_ring_4warp_pays(p) ? launch_replayssm_short_ring_4warp(p, stream) : launch_replayssm_short_ring(p, stream);
  return launch_instantiation(p, [&](auto nc, auto sdt) {
    replayssm_step_kernel<decltype(nc)::value, decltype(sdt)::value>
        <<<static_cast<unsigned>(replayssm_blocks(p)), cta_threads(p, kRowsPerWarp), 0, stream>>>(p);
    return cudaGetLastError();
  });
}

cudaError_t launch_replayssm_circular(const ReplayParams& p, cudaStream_t stream) {
  if (p.K > kMaxK) return launch_replayssm_wide_circular(p, stream);
  return launch_instantiation(p, [&](auto nc, auto sdt) {
    replayssm_step_kernel<decltype(nc)::value, decltype(sdt)::value, true>
        <<<static_cast<unsigned>(replayssm_blocks(p)), cta_threads(p, kRowsPerWarp), 0, stream>>>(p);
    return cudaGetLastError();
  });
}

}  // namespace kda::cuda::detail
