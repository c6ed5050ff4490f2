// The ReplaySSM decode step on the GPU for K <= 128 and L <= 17 on large grids:
// replayssm_short_ring_kernel.cu's step with a warp streaming 32 rows, so that a CTA of (row,
// value head, 128 rows) is 4 warps and the per-warp work that does not depend on the rows
// (the row's index and flags, the token's columns, offsets, the output) is paid once per 32
// rows, not 16: 0.67x the 8-warp kernel's warp instructions. The launcher
// (replayssm_kernel.cu, short_ring_4warp_pays()) takes it for 16-bit states on grids of
// >= 1,024 CTAs and for float32 at L > 1 on >= 2,048, where it measured faster; on smaller
// grids, and for float32 steps where every row flushes (L = 1), the 8-warp kernel stays
// faster (docs/kernel-design.md).
//
// Why a short-ring kernel: the long-ring kernel keeps a warp's 16 checkpoint rows in 64
// registers across every ring chunk of a flush, which caps it at 2 CTAs per SM; its memory
// rounds and barriers then stand in line with its arithmetic. With the whole ring in shared
// memory at once, a warp needs a row only while it works on it: a warp streams its rows 4 at
// a time from registers, the next group or two (64 bytes per lane) loading meanwhile: 80
// registers. And an append need not rebuild the state:
//   S_dec k = (S0 diag(exp(total) exp(g))) k + sum_j d_j (w_j . (exp(g) k)),
// the same for q*scale, so an append row costs two dot products with per-column weights plus
// one scalar per record (a_j = w_j . (exp(g) k), b_j = w_j . (exp(g) q scale), each computed
// once per CTA by one warp and shared through shared memory). A flush row is rebuilt (S0
// exp(total) + sum_j d_j w_j^T, then exp(g)), because its checkpoint must be written. w_j
// and d_j are rounded to out's dtype (the spec's rounding point) in both paths.
//
// Per CTA (one per (row, value head, 128 state rows); 4 warps of 32 rows):
//   1. memory round 1, every load issued before any value is used (one round trip, not one
//      per load): the row's index, cursor and force flag, per column thread q, k, a, dt_bias,
//      A_log; per row v; b; padding rows: zeros to out, return; the gate, v to shared memory;
//   2. memory round 2: the ring records (cursor <= 16) into shared memory by cp.async, each
//      warp's first rows into registers, the duplicate-slot scan spread over the CTA; beta by
//      one thread meanwhile; one barrier with the duplicate verdict once the ring has landed;
//      rejected rows: zeros to out, return;
//   3. one thread per column: g, exp(g), exp(total), w_j; all threads: d_j; barrier; an
//      append: record j's a_j and b_j by one warp, barrier;
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

// A warp streams two 16-row blocks of the CTA's 128 rows: its own and the one block_step
// rows further (a CTA of fewer rows, or more warps than half its blocks, leaves the second
// empty).
constexpr int kBlocksPerWarp = 2;
constexpr int kWarpRows = kBlocksPerWarp * kRowsPerWarp;
constexpr int kWarps = kCtaRows / kWarpRows;  // 4 warps of 32 rows cover a CTA's 128

constexpr int kGroup = 4;  // rows a warp computes at a time
// Groups loading while one computes: 64 bytes per lane whatever the state's dtype, so every
// warp keeps 2 KB of checkpoint rows in flight (one 16-bit group would leave the loads half as
// deep; a 16-bit group of 8 rows spills 200-300 B at 80 registers).
template <int32_t SDT>
__host__ __device__ constexpr int groups_ahead() {
  return SDT == kF32 ? 1 : 2;
}
// 6 CTAs of 4 warps per SM: 80 registers, 36 KB of static shared memory (the carveout set to
// its maximum), as many warps per SM as the 8-warp kernel's 3 CTAs, without its 32 KB tile
// (a tile of 67 KB per CTA would allow 3 CTAs of 4 warps).
constexpr int kMinCtasPerSm = 6;

// SDT: the state's dtype, a template parameter so the checkpoint rows (most of the bytes)
// move as straight vector accesses.
// kPlain: the plain packed decode (ReplayParams::plain).
template <int NC, int32_t SDT, bool kPlain>
__global__ void __launch_bounds__(kWarps * 32, kMinCtasPerSm) replayssm_short_ring_4warp_kernel(const ReplayParams p) {
  __shared__ __align__(16) HeadShared sh;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const CtaPlace place = cta_place(p);
  const int vc = place.vc, hv = place.hv, row = place.row, h = place.h, cta_rows = place.cta_rows;
  const int64_t v_base = place.v_base;
  // The warp's rows: its 16-row blocks warp and warp + warps of the CTA (cta_threads(p, 32)
  // gives at least half as many warps as blocks); rel = r + bi * block_step is row r of block bi,
  // counted from the warp's first row v_first.
  const int warps = static_cast<int>(blockDim.x >> 5);
  const int block_step = warps * kRowsPerWarp;
  const int nrows0 = min(kRowsPerWarp, cta_rows - warp * kRowsPerWarp);  // <= 0: a warp that only fills columns
  const int nrows1 = min(kRowsPerWarp, cta_rows - warp * kRowsPerWarp - block_step);
  const int64_t v_first = v_base + warp * kRowsPerWarp;
  const int64_t out_row = static_cast<int64_t>(row) * p.out.stride[0] + hv * p.out.stride[1];
  const int c0 = lane * NC;
  const bool active = c0 < p.K;  // K < 32: lanes past K hold zeros
  const int my_row = lane >> 1;  // in the results: lane 2i holds row i's S.k, lane 2i+1 its S.(q scale)
  const bool column = tid < p.K;  // thread tid computes column tid's per-head values

  // Memory round 1: every load that does not depend on the slot, all issued before any value
  // is used (raw bits, converted once the index has landed: a use right after its load
  // would hold the next load back, one round trip each).
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
  if (tid < cta_rows) v_bits = load_bits(p.qkv.ptr, qkv.v0 + v_base + tid, p.qkv.dtype);
  if (tid == blockDim.x - 1) b_bits = load_bits(p.b.ptr, row * p.b.stride[0] + hv * p.b.stride[1], p.b.dtype);
  RowVerdict r = row_verdict<kPlain>(p, row_loads);
  if (r.status == kRowPadding) {
    zero_out_rows(p, out_row, v_first, nrows0, lane);
    zero_out_rows(p, out_row, v_first + block_step, nrows1, lane);
    publish_row_status(p, row, hv, vc, r.status);
    return;
  }

  // Round 1's values (issued with the index, they land with it).
  float q_raw = 0.0f, k_raw = 0.0f, gate_c = 0.0f;
  if (column) {
    q_raw = bits_to_float(q_bits, p.qkv.dtype);
    k_raw = bits_to_float(k_bits, p.qkv.dtype);
    const float x = bits_to_float(a_bits, p.a.dtype) + bits_to_float(dt_bits, p.dt_bias.dtype);
    gate_c = gate_of(p, x, expf(bits_to_float(A_log_bits, p.A_log.dtype)));
  }
  __shared__ float v_sh[kCtaRows];  // v of the CTA's rows (thread i: row i), read after the next barrier
  if (tid < cta_rows) v_sh[tid] = bits_to_float(v_bits, p.qkv.dtype);

  // Memory round 2: the warp's first rows into registers, the ring records into shared
  // memory (only for a slot and cursor inside the tensors), the duplicate scan's index loads.
  constexpr int se = float_dtype_bytes(SDT);
  WarpRows w{};
  w.row = p.state.stride[2];
  w.col = p.state.stride[3];
  w.off = r.status == kRowOk ? off4(p.state, r.slot, hv, v_first, c0) : 0;
  w.at = p.state.ptr + w.off * se;
  w.row_bytes = w.row * se;
  // Vector rows: contiguous columns and every row's lane segment aligned to NC elements.
  w.vec = w.col == 1 && (reinterpret_cast<uintptr_t>(w.at) % (NC * se)) == 0 && (w.row_bytes % (NC * se)) == 0;
  const bool rows_here = r.status == kRowOk && active;
  constexpr int G = kGroup, kAhead = groups_ahead<SDT>(), kGroupsPerBlock = kRowsPerWarp / G;
  // Group gi of the warp: rows [first, first + n) of its block gi / kGroupsPerBlock, the
  // first of them rel rows after v_first (n <= 0: none; groups come in order).
  auto group_at = [&](int gi, int& rel, int& first) {
    const int bi = gi / kGroupsPerBlock;
    first = (gi % kGroupsPerBlock) * G;
    rel = first + bi * block_step;
    return min(G, (bi == 0 ? nrows0 : bi == 1 ? nrows1 : 0) - first);
  };
  constexpr int words = raw_words<NC, SDT>();
  uint32_t ahead[kAhead][G][words];  // the groups after the one computing, loading
#pragma unroll
  for (int a = 0; a < kAhead; ++a) {
    int rel, first;
    const int n = group_at(a, rel, first);
    load_group<NC, SDT, G>(p, w, rel, rows_here ? n : 0, ahead[a]);
  }
  if (r.status == kRowOk) stage_records(p, sh.ring, r.slot, hv, h, v_base, cta_rows, 0, r.cursor);
  const bool dup = slot_taken_elsewhere_batched(p, row, r.slot, tid, blockDim.x);

  // beta (a double exp) by the CTA's last thread, while the copies land.
  __shared__ float beta_sh;  // beta of (row, hv), computed once for the CTA
  if (tid == blockDim.x - 1) {
    const float b_raw = bits_to_float(b_bits, p.b.dtype);
    if constexpr (kPlain) beta_sh = beta_plain(b_raw);
    else beta_sh = beta_of(b_raw, p.b.dtype);
  }
  cp_async_wait_all();
  if (__syncthreads_or(dup)) r.status |= kRowDuplicateSlot;
  publish_row_status(p, row, hv, vc, r.status);
  if (r.status != kRowOk) {  // rejected: zeros to out, nothing else
    zero_out_rows(p, out_row, v_first, nrows0, lane);
    zero_out_rows(p, out_row, v_first + block_step, nrows1, lane);
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
  __syncthreads();

  // The token's columns of this lane (every warp: those without rows help with the records).
  float qs[NC], kn[NC], kq, k_norm = 1.0f;
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
  }
  const float beta = beta_sh;

  // An append's per-record coefficients a_j = w_j . (exp(g) k) and b_j = w_j . (exp(g) q
  // scale): every warp needs all of them, so each is computed once, by warp j mod the CTA's
  // warps (cta_threads(): as few as one for a small head), and shared (a block-uniform
  // branch: r.flush is the CTA's).
  __shared__ float2 coef_sh[kRecordChunk];
  if (!r.flush) {
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
  }
  if (nrows0 <= 0) return;

  // The warp's rows, G at a time, the next kAhead groups loading meanwhile. Adds to dot0 / dot1
  // lane l's dot of row l/2 of the warp's first / second block (S.k for l even, S.(q scale)
  // for l odd) over the columns' weights x, y; a flush (kFlush) first rebuilds each row and
  // writes the new checkpoint rows. Two instances, so that each keeps only its own per-column
  // values live.
  auto stream_rows = [&](auto flush_tag, const float(&x)[NC], const float(&y)[NC], float& dot0, float& dot1) {
    constexpr bool kFlush = decltype(flush_tag)::value;
#pragma unroll 1
    for (int g0 = 0; g0 < kBlocksPerWarp * kGroupsPerBlock; g0 += kAhead)
#pragma unroll
    for (int a = 0; a < kAhead; ++a) {  // group g0 + a comes from ahead[a], which then loads group g0 + a + kAhead
      const int gi = g0 + a;
      int rel, first;
      const int n = group_at(gi, rel, first);
      if (n <= 0) return;
      const int bi = gi / kGroupsPerBlock;
      float S[G][NC];
#pragma unroll
      for (int rr = 0; rr < G; ++rr) unpack_raw<NC, SDT>(ahead[a][rr], S[rr]);
      {
        int rel_next, first_next;
        const int n_next = group_at(gi + kAhead, rel_next, first_next);
        load_group<NC, SDT, G>(p, w, rel_next, active ? n_next : 0, ahead[a]);
      }
      if constexpr (kFlush) {  // exp(total) and exp(g) from shared memory: fewer registers held
        float et[NC];
        load_shared_cols(sh.etot, c0, active, et);
#pragma unroll
        for (int rr = 0; rr < G; ++rr)
#pragma unroll
          for (int c = 0; c < NC; ++c) S[rr][c] *= et[c];
        for (int j = 0; j < jn; ++j) {
          float wj[NC];
          load_shared_cols(sh.ring.g[j], c0, active, wj);
          const float* dj = &sh.d[j][warp * kRowsPerWarp + rel];
#pragma unroll
          for (int q4 = 0; q4 < G / 4; ++q4) {
            const float4 d4 = *reinterpret_cast<const float4*>(dj + 4 * q4);
            const float dr[4] = {d4.x, d4.y, d4.z, d4.w};
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
              for (int c = 0; c < NC; ++c) S[4 * q4 + i][c] = fmaf(dr[i], wj[c], S[4 * q4 + i][c]);
          }
        }
        float eg[NC];
        load_shared_cols(sh.eg, c0, active, eg);
#pragma unroll
        for (int rr = 0; rr < G; ++rr)
#pragma unroll
          for (int c = 0; c < NC; ++c) S[rr][c] *= eg[c];
      }
      const float red = row_dots(S, x, y);  // lane l: group row (l % 2G) / 2
      if ((lane >> 1) / G == first / G) {   // the group's rows are the block's rows first .. first + G - 1
        if (bi == 0) dot0 += red;
        else dot1 += red;
      }
      if constexpr (kFlush) {  // the new checkpoint rows S + d k^T (d exactly as the output below computes it)
        const float dl = beta * (v_sh[warp * kRowsPerWarp + rel + ((lane & (2 * G - 1)) >> 1)] - red);
#pragma unroll
        for (int rr = 0; rr < G; ++rr) {
          const float d = __shfl_sync(kFullMask, dl, 2 * rr);
          if (rr >= n || !active) continue;
          float s[NC];
#pragma unroll
          for (int c = 0; c < NC; ++c) s[c] = fmaf(d, kn[c], S[rr][c]);
          if (w.vec) store_cols_aligned<NC, SDT>(w.at + (rel + rr) * w.row_bytes, s);
          else store_cols(p.state.ptr, SDT, w.off + (rel + rr) * w.row, w.col, s);
        }
      }
    }
  };

  float dot0 = 0.0f, dot1 = 0.0f;  // an append's records part first, then the checkpoint's
  if (r.flush) {
    stream_rows(std::true_type{}, kn, qs, dot0, dot1);
  } else {
    // The records' part of lane l's dots (a_j for l even, b_j for l odd); then the
    // checkpoint's per-column weights.
    const bool here0 = my_row < nrows0, here1 = my_row < nrows1;
    const float* d0 = &sh.d[0][warp * kRowsPerWarp + my_row];
#pragma unroll
    for (int j = 0; j < kRecordChunk; ++j) {
      if (j >= jn) break;
      const float2 ab = coef_sh[j];
      const float c = (lane & 1) ? ab.y : ab.x;
      if (here0) dot0 = fmaf(d0[j * kCtaRows], c, dot0);
      if (here1) dot1 = fmaf(d0[j * kCtaRows + block_step], c, dot1);
    }
    float x[NC], y[NC], et[NC], eg[NC];
    load_shared_cols(sh.etot, c0, active, et);
    load_shared_cols(sh.eg, c0, active, eg);
#pragma unroll
    for (int n = 0; n < NC; ++n) {
      const float e = et[n] * eg[n];
      x[n] = e * kn[n], y[n] = e * qs[n];
    }
    stream_rows(std::false_type{}, x, y, dot0, dot1);
  }

  // d = beta (v - S.k) and o = S.(q scale) + d k.(q scale) of each block's rows: lane 2i
  // writes row i.
#pragma unroll
  for (int bi = 0; bi < kBlocksPerWarp; ++bi) {
    const int nrows = bi == 0 ? nrows0 : nrows1;
    if (nrows <= 0) break;
    const float full = bi == 0 ? dot0 : dot1;
    const float sq = __shfl_down_sync(kFullMask, full, 1);
    if ((lane & 1) == 0 && my_row < nrows) {
      const int64_t v = v_first + bi * block_step + my_row;
      const float d = beta * (v_sh[warp * kRowsPerWarp + bi * block_step + my_row] - full);
      store_row_results(p, r.flush, r.slot, hv, r.cursor, out_row, v, sq, d, kq);
    }
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

template <bool kPlain>
cudaError_t launch_short_ring(const ReplayParams& p, cudaStream_t stream) {
  return launch_instantiation(p, [&](auto nc, auto sdt) {
    constexpr int NC = decltype(nc)::value;
    constexpr int32_t SDT = decltype(sdt)::value;
    const auto kernel = replayssm_short_ring_4warp_kernel<NC, SDT, kPlain>;
    // 6 CTAs of 36 KB per SM need the carveout at its maximum (without the hint the driver
    // picked 132 KB of shared memory: 3 CTAs); set once per instantiation and device.
    static std::atomic<uint64_t> carveout_set{0};
    const auto set_carveout = [&] {
      return cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared);
    };
    if (const cudaError_t e = once_per_device(carveout_set, set_carveout); e != cudaSuccess) return e;
    kernel<<<static_cast<unsigned>(replayssm_blocks(p)), cta_threads(p, kWarpRows), 0, stream>>>(p);
    return cudaGetLastError();
  });
}

}  // namespace

bool short_ring_4warp_pays(const ReplayParams& p) {
  const int64_t blocks = replayssm_blocks(p);
  if (p.state.dtype != kF32) return blocks >= 1024;
  return p.L > 1 && blocks >= 2048;
}

cudaError_t launch_replayssm_short_ring_4warp(const ReplayParams& p, cudaStream_t stream) {
  return p.plain ? launch_short_ring<true>(p, stream) : launch_short_ring<false>(p, stream);
}

}  // namespace kda::cuda::detail
