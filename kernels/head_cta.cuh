// What the K <= 128 kernels (replayssm_short_ring_kernel.cu, its 4-warp form and
// replayssm_kernel.cu) share for their CTA of (row, value head, 128 state rows): where it sits, how
// it is launched, its shared memory with up to 16 ring records staged there by cp.async, the row's
// status and zeroed output for a refused row, and a lane's columns of a 128-float shared row.
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/async_copy.cuh"
#include "kernels/replayssm_device.cuh"

namespace kda::cuda::detail {

constexpr int kCtaRows = 128;    // state rows of one CTA (a head of V = 128 in one CTA)
constexpr int kCtaMaxK = 128;    // columns of one CTA: K <= 128
constexpr int kRecordChunk = 16; // ring records staged per pass (static shared memory < 48 KB)

// Ring records as staged: the gates (float32), keys and the CTA's rows of the deltas, each
// record a 512-byte row (the keys and deltas in their cache's dtype, packed).
struct RingChunk {
  float g[kRecordChunk][kCtaMaxK];
  alignas(16) char k_raw[kRecordChunk][kCtaMaxK * 4];
  alignas(16) char d_raw[kRecordChunk][kCtaRows * 4];
  float gs[kRecordChunk];  // a scalar gate's records (ReplayParams::scalar_gate), in place of g's columns
};

// What is the same for every state row of a head, one column per thread, and the ring
// records staged for the CTA's rows: the shared memory of both kernels' CTAs.
struct HeadShared {
  float q[kCtaMaxK], k[kCtaMaxK];  // raw q and k of the token (each warp normalizes its own columns)
  float g[kCtaMaxK], eg[kCtaMaxK];  // the current gate and exp(g)
  float etot[kCtaMaxK];             // exp(sum of the ring's gates)
  float d[kRecordChunk][kCtaRows];  // ring deltas of the CTA's rows, rounded to out's dtype
  RingChunk ring;  // ring.g: the gates g_j as staged, turned into the decayed keys w_j in place
};

// Where a CTA sits: blockIdx.x = (row * HV + hv) * (V chunks of kRows) + vc. The grid has
// fewer than 2^31 blocks (the launcher checks), so the indices fit in 32 bits. kRows: a
// CTA's state rows, 128, or fewer where a kernel splits a head over more CTAs.
struct CtaPlace {
  int vc, hv, row, h;
  int64_t v_base;  // the CTA's first state row
  int cta_rows;    // its rows: min(kRows, V - v_base), a power of two
};

template <int kRows = kCtaRows>
__device__ __forceinline__ CtaPlace cta_place(const ReplayParams& p) {
  CtaPlace c;
  const int n_vchunks = static_cast<int>((p.V + kRows - 1) / kRows);
  int id = static_cast<int>(blockIdx.x);
  c.vc = id % n_vchunks;
  id /= n_vchunks;
  c.hv = id % static_cast<int>(p.HV);
  c.row = id / static_cast<int>(p.HV);
  c.h = c.hv / static_cast<int>(p.HV / p.H);
  c.v_base = static_cast<int64_t>(c.vc) * kRows;
  c.cta_rows = static_cast<int>(min64(kRows, p.V - c.v_base));
  return c;
}

// Calls launch(NC, SDT) (std::integral_constants) for the kernel instantiation of this step:
// NC = K / 32 columns per lane (1 for K <= 32), SDT the state's dtype.
template <class Launch>
cudaError_t launch_instantiation(const ReplayParams& p, Launch&& launch) {
  auto for_state_dtype = [&](auto nc) {
    if (p.state.dtype == kBF16) return launch(nc, std::integral_constant<int32_t, kBF16>{});
    if (p.state.dtype == kF16) return launch(nc, std::integral_constant<int32_t, kF16>{});
    return launch(nc, std::integral_constant<int32_t, kF32>{});
  };
  if (p.K <= 32) return for_state_dtype(std::integral_constant<int, 1>{});
  if (p.K == 64) return for_state_dtype(std::integral_constant<int, 2>{});
  return for_state_dtype(std::integral_constant<int, 4>{});
}

// Threads of a CTA of at most cta_rows rows: enough warps for its rows (rows_per_warp each)
// and for one thread per column.
inline unsigned cta_threads(const ReplayParams& p, int rows_per_warp, int cta_rows = kCtaRows) {
  const int64_t rows = min64(cta_rows, p.V);
  const int64_t warps = std::max<int64_t>((rows + rows_per_warp - 1) / rows_per_warp, (p.K + 31) / 32);
  return static_cast<unsigned>(32 * warps);
}

// The row's flags, written once (thread 0 of the row's first CTA) when the caller asked.
__device__ __forceinline__ void publish_row_status(const ReplayParams& p, int row, int hv, int vc, int32_t status) {
  if (p.row_status.ptr != nullptr && hv == 0 && vc == 0 && threadIdx.x == 0)
    reinterpret_cast<int32_t*>(p.row_status.ptr)[row * p.row_status.stride[0]] = status;
}

// out = 0 for a padding or refused row: lane i of a warp writes its row v_first + i.
__device__ __forceinline__ void zero_out_rows(const ReplayParams& p, int64_t out_row, int64_t v_first, int nrows,
                                              int lane) {
  if (lane < nrows) store_float(p.out.ptr, out_row + (v_first + lane) * p.out.stride[2], p.out.dtype, 0.0f);
}

// Ring slots [jc, jc + jn) of the three rings -> staged records [at, at + jn) in shared
// memory (cp.async; the caller waits).
__device__ __forceinline__ void stage_records_at(const ReplayParams& p, RingChunk& rc, int64_t slot, int hv, int h,
                                                 int64_t v_base, int cta_rows, int jc, int jn, int at) {
  if (jn <= 0) return;
  const int ke = float_dtype_bytes(p.k_cache.dtype), de = float_dtype_bytes(p.d_cache.dtype);
  const char* g_src = p.g_cache.ptr + off4(p.g_cache, slot, hv, jc, 0) * 4;
  // A scalar gate: one float per record, jn 4-byte copies into gs (the columns read it by
  // broadcast), not K copies of each into g's columns.
  if (p.scalar_gate) stage_block({g_src, p.g_cache.stride[2], 1, jn, 1, 4, reinterpret_cast<char*>(rc.gs + at), 4});
  if (p.rings_dense) {  // rows of whole 16-byte chunks (the launcher checked): no per-CTA decisions
    const int K = static_cast<int>(p.K);
    if (!p.scalar_gate)
      copy_rows16(reinterpret_cast<char*>(&rc.g[at][0]), kCtaMaxK * 4, g_src, p.g_cache.stride[2] * 4, jn,
                  __ffs(K * 4 / 16) - 1);
    copy_rows16(&rc.k_raw[at][0], kCtaMaxK * 4, p.k_cache.ptr + off4(p.k_cache, slot, h, jc, 0) * ke,
                p.k_cache.stride[2] * ke, jn, __ffs(K * ke / 16) - 1);
    copy_rows16(&rc.d_raw[at][0], kCtaRows * 4, p.d_cache.ptr + off4(p.d_cache, slot, hv, jc, v_base) * de,
                p.d_cache.stride[2] * de, jn, __ffs(cta_rows * de / 16) - 1);
    return;
  }
  if (!p.scalar_gate)
    stage_block({g_src, p.g_cache.stride[2], p.g_cache.stride[3], jn, static_cast<int>(p.K), 4,
                 reinterpret_cast<char*>(&rc.g[at][0]), kCtaMaxK * 4});
  stage_block({p.k_cache.ptr + off4(p.k_cache, slot, h, jc, 0) * ke, p.k_cache.stride[2], p.k_cache.stride[3], jn,
               static_cast<int>(p.K), ke, &rc.k_raw[at][0], kCtaMaxK * 4});
  stage_block({p.d_cache.ptr + off4(p.d_cache, slot, hv, jc, v_base) * de, p.d_cache.stride[2], p.d_cache.stride[3],
               jn, cta_rows, de, &rc.d_raw[at][0], kCtaRows * 4});
}

// Records [jc, jc + jn) of the three rings -> shared memory (cp.async; the caller waits).
__device__ __forceinline__ void stage_records(const ReplayParams& p, RingChunk& rc, int64_t slot, int hv, int h,
                                              int64_t v_base, int cta_rows, int jc, int jn) {
  stage_records_at(p, rc, slot, hv, h, v_base, cta_rows, jc, jn, 0);
}

// A circular ring's logical records [jc, jc + jn) (jc + jn <= L) -> staged records [0, jn):
// ring slots from ring.phys(jc) up to the ring's end, then from slot 0 where the window wraps.
__device__ __forceinline__ void stage_circular_records(const ReplayParams& p, RingChunk& rc, int64_t slot, int hv,
                                                       int h, int64_t v_base, int cta_rows, int jc, int jn,
                                                       const CircularRow& ring) {
  if (jn <= 0) return;
  const int first = static_cast<int>(ring.phys(jc, p.L));
  const int n1 = static_cast<int>(min64(jn, p.L - first));
  stage_records_at(p, rc, slot, hv, h, v_base, cta_rows, first, n1, 0);
  stage_records_at(p, rc, slot, hv, h, v_base, cta_rows, 0, jn - n1, n1);
}

// Column c's gates of the staged records [0, jn), 0 after them (the unrolled chunk of both
// short-ring kernels): a scalar gate's from gs by broadcast, KDA's from g's column at a
// constant stride: two loops behind a uniform branch, not one read through a runtime step.
__device__ __forceinline__ void load_staged_gates(const ReplayParams& p, const RingChunk& rc, int c, int jn,
                                                  float (&gj)[kRecordChunk]) {
  if (p.scalar_gate) {
#pragma unroll
    for (int j = 0; j < kRecordChunk; ++j) gj[j] = j < jn ? rc.gs[j] : 0.0f;
  } else {
#pragma unroll
    for (int j = 0; j < kRecordChunk; ++j) gj[j] = j < jn ? rc.g[j][c] : 0.0f;
  }
}

// The staged deltas of records [0, jn) rounded to out's dtype od (the spec's rounding point),
// spread over the CTA; the CTA has cta_rows = 2^lg_rows rows.
__device__ __forceinline__ void round_staged_deltas(const ReplayParams& p, int32_t od, HeadShared& sh, int jn,
                                                    int cta_rows, int lg_rows) {
  for (int i = threadIdx.x; i < (jn << lg_rows); i += blockDim.x) {
    const int j = i >> lg_rows, v = i & (cta_rows - 1);
    sh.d[j][v] = round_to(od, load_float(sh.ring.d_raw[j], v, p.d_cache.dtype));
  }
}

// x = row[c0, c0 + NC) of a shared 128-float row (16-byte aligned), zeros when !active.
template <int NC>
__device__ __forceinline__ void load_shared_cols(const float* row, int c0, bool active, float (&x)[NC]) {
  if constexpr (NC == 4) {  // K = 128: every lane active
    const float4 v = *reinterpret_cast<const float4*>(row + c0);
    x[0] = v.x, x[1] = v.y, x[2] = v.z, x[3] = v.w;
  } else if constexpr (NC == 2) {  // K = 64: every lane active
    const float2 v = *reinterpret_cast<const float2*>(row + c0);
    x[0] = v.x, x[1] = v.y;
  } else {
    x[0] = active ? row[c0] : 0.0f;
  }
}

}  // namespace kda::cuda::detail
