// The ReplaySSM decode step on the GPU (semantics.md). One CTA per (row, value head, tile of
// BV state rows), instantiated per STATE dtype only (the checkpoint is the bulk of the bytes;
// activations, rings and out go through runtime-dtype converters). Per CTA:
//   round 1: the row's index, cursor and flush flag, and the token's inputs, in flight together;
//   round 2: the checkpoint tile and the first ring chunk (cp.async) and the duplicate scan;
//   then: judge the row (a padding or rejected row writes zeros to its out tile and nothing
//   else); norms, k.(q*scale), beta; per K tile the rebuild (replayssm_rebuild.cuh) and the
//   partial S_dec.k, S_dec.(q*scale); d = beta (v - S_dec k), o = S_dec (q*scale) + d (k.q)
//   -> out; flush: checkpoint = S_dec + d k^T with 16-byte stores (K tiles rebuilt again
//   when K > KT); append: the ring records at the cursor.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <mutex>

#include "kernels/replayssm_params.hpp"
#include "kernels/replayssm_rebuild.cuh"
#include "kernels/replayssm_smem.cuh"
#include "kernels/replayssm_token.cuh"

namespace kda::cuda::detail {
namespace {

constexpr int kThreads = 128;  // also the widest K tile: one thread per column in the rebuild
constexpr int kMinBlocksPerSm = 4;

__host__ __device__ __forceinline__ int64_t min64(int64_t x, int64_t y) { return x < y ? x : y; }

// New checkpoint row segment = S_dec + d k^T, rounded to the state dtype, from registers;
// 16-byte stores where the row and segment allow them (not the envelope state's odd slots).
template <typename TS>
__device__ __forceinline__ void store_state_seg(const ReplayParams& p, const TileRef& x, const SmemTile& m, const Seg& g,
                                                const float (&s)[kSegMax]) {
  if (g.v >= x.bv) return;
  constexpr int kVec = 16 / sizeof(TS);
  char* dst = const_cast<char*>(at4(p.state, x.slot, x.hv, x.vbase + g.v, x.c0 + g.c));
  const float d = m.dv[g.v];
  float o[kSegMax];
#pragma unroll
  for (int e = 0; e < kSegMax; ++e) o[e] = e < g.n && g.c + e < x.kw ? s[e] + d * m.kn[x.c0 + g.c + e] : 0.0f;
  if (reinterpret_cast<uintptr_t>(dst) % 16 == 0 && g.n % kVec == 0 && g.c + g.n <= x.kw) {
#pragma unroll
    for (int u = 0; u < kSegMax / kVec; ++u)
      if (u * kVec < g.n) reinterpret_cast<uint4*>(dst)[u] = pack16<TS>(o + u * kVec);
    return;
  }
#pragma unroll
  for (int e = 0; e < kSegMax; ++e)
    if (e < g.n && g.c + e < x.kw) {
      if constexpr (sizeof(TS) == 4) reinterpret_cast<float*>(dst)[e] = o[e];
      else reinterpret_cast<uint16_t*>(dst)[e] = static_cast<uint16_t>(bits_of<TS>(o[e]));
    }
}

// Partial S_dec.k and S_dec.(q*scale) of the tile: the thread's segment, then the row's four
// threads (adjacent lanes) by two shuffles; the row's first thread adds to m.sk / m.sq.
__device__ __forceinline__ void accumulate_dots(const SmemTile& m, const TileRef& x, const Seg& g,
                                                const float (&s)[kSegMax]) {
  float sk = 0.0f, sq = 0.0f;
#pragma unroll
  for (int e = 0; e < kSegMax; ++e)
    if (e < g.n && g.c + e < x.kw) {
      sk += s[e] * m.kn[x.c0 + g.c + e];
      sq += s[e] * m.qs[x.c0 + g.c + e];
    }
  sk += __shfl_xor_sync(0xffffffffu, sk, 1);
  sq += __shfl_xor_sync(0xffffffffu, sq, 1);
  sk += __shfl_xor_sync(0xffffffffu, sk, 2);
  sq += __shfl_xor_sync(0xffffffffu, sq, 2);
  if (g.q == 0 && g.v < x.bv) {
    m.sk[g.v] += sk;
    m.sq[g.v] += sq;
  }
}

template <typename TS>
__global__ void __launch_bounds__(kThreads, kMinBlocksPerSm) replayssm_step_kernel(const ReplayParams p,
                                                                                   const LaunchShape shape) {
  extern __shared__ float4 smem_raw[];
  const SmemTile m = carve_smem(reinterpret_cast<char*>(smem_raw), p, shape);
  const int bv = static_cast<int>(min64(shape.BV, p.V));
  const int kw = static_cast<int>(min64(shape.KT, p.K));
  const uint32_t n_vtiles = static_cast<uint32_t>(p.V / bv), HV = static_cast<uint32_t>(p.HV);
  const uint32_t vt = blockIdx.x % n_vtiles, hv = blockIdx.x / n_vtiles % HV;
  const int64_t row = blockIdx.x / n_vtiles / HV;
  const int64_t vbase = static_cast<int64_t>(vt) * bv, n_ktiles = p.K / kw;
  const int tid = threadIdx.x, nth = blockDim.x;
  const int64_t out_row = row * p.out.stride[0] + hv * p.out.stride[1];

  // Round 1: the token's loads and the row's index loads, all issued before any is used
  // (the token's reads do not depend on the row's values and stay inside the activations).
  const TokenLoads tl = issue_token_loads(p, row, hv, vbase, bv);
  RowVerdict r = read_row(p, row);
  Token t = store_token(p, tl, row, hv, m, bv);
  TileRef x{r.slot, hv, t.h, vbase, 0, r.cursor, bv, kw};
  // Round 2: copies only for a row whose slot and cursor are in range (reads in bounds).
  if (r.status == kRowOk) {
    issue_state_copy<TS>(p, x, m);
    issue_chunk_copy(p, x, m, 0);
  }
  const bool dup = r.status != kRowPadding && names_taken_slot(p, row, r.slot);
  if (__syncthreads_or(dup)) r.status |= kRowDuplicateSlot;
  if (p.row_status.ptr != nullptr && hv == 0 && vt == 0 && tid == 0)
    reinterpret_cast<int32_t*>(p.row_status.ptr)[row * p.row_status.stride[0]] = r.status;
  if (r.status != kRowOk) {
    cp_async_wait_all();  // a rejected duplicate row may have copies in flight
    for (int v = tid; v < bv; v += nth) store_float(p.out.ptr, out_row + (vbase + v) * p.out.stride[2], p.out.dtype, 0.0f);
    return;
  }
  finish_token(p, t, m);
  for (int v = tid; v < m.rows; v += nth) m.sk[v] = m.sq[v] = 0.0f;

  // One pass over the K tiles for the output; a flush over several K tiles needs d first, so
  // it rebuilds them in a second pass. One rebuild site keeps the SASS (and the i-cache) small.
  const Seg g = my_seg(m);
  float s[kSegMax];
  const int64_t n_iters = r.flush && n_ktiles > 1 ? 2 * n_ktiles : n_ktiles;
  for (int64_t it = 0; it < n_iters; ++it) {
    x.c0 = (it % n_ktiles) * kw;
    if (it < n_ktiles || n_ktiles > 1) rebuild_tile<TS>(p, x, m, it == 0, g, s);
    if (it < n_ktiles) {
      accumulate_dots(m, x, g, s);
      __syncthreads();
    }
    if (it == n_ktiles - 1) {  // the row's d and output
      for (int v = tid; v < bv; v += nth) {
        const float d = t.beta * (m.vv[v] - m.sk[v]);
        store_float(p.out.ptr, out_row + (vbase + v) * p.out.stride[2], p.out.dtype, m.sq[v] + d * t.kq);
        m.dv[v] = d;
        if (!r.flush)
          store_float(const_cast<char*>(at4(p.d_cache, r.slot, hv, r.cursor, vbase + v)), 0, p.d_cache.dtype, d);
      }
      if (!r.flush) break;
      __syncthreads();
    }
    if (r.flush && (it >= n_ktiles || n_ktiles == 1)) store_state_seg<TS>(p, x, m, g, s);
    __syncthreads();  // the next tile's copies overwrite the smem tile
  }
  if (!r.flush && vt == 0) {  // append: g (and k, once per query-head group) at the cursor
    const bool writes_key = hv % (p.HV / p.H) == 0;
    for (int64_t c = tid; c < p.K; c += nth) {
      *reinterpret_cast<float*>(const_cast<char*>(at4(p.g_cache, r.slot, hv, r.cursor, c))) = m.gc[c];
      if (writes_key) store_float(const_cast<char*>(at4(p.k_cache, r.slot, t.h, r.cursor, c)), 0, p.k_cache.dtype, m.kn[c]);
    }
  }
}

// Once per device and state dtype, outside graph capture: prefer the largest shared-memory
// carveout (so kMinBlocksPerSm CTAs fit) and allow > 48 KB of dynamic shared memory (large K).
template <typename TS>
void configure(cudaStream_t stream) {
  static std::mutex mu;
  static uint64_t done = 0;
  int dev = 0;
  cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
  if (cudaGetDevice(&dev) != cudaSuccess || dev >= 64 || cudaStreamIsCapturing(stream, &cap) != cudaSuccess ||
      cap != cudaStreamCaptureStatusNone) {
    cudaGetLastError();  // a failed query is not the launch's error
    return;
  }
  std::lock_guard<std::mutex> lock(mu);
  if (done >> dev & 1u) return;
  int optin = 0;
  cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
  cudaFuncSetAttribute(replayssm_step_kernel<TS>, cudaFuncAttributePreferredSharedMemoryCarveout, 100);
  if (optin > 0) cudaFuncSetAttribute(replayssm_step_kernel<TS>, cudaFuncAttributeMaxDynamicSharedMemorySize, optin);
  cudaGetLastError();  // an attribute that did not apply only costs speed
  done |= uint64_t{1} << dev;
}

template <typename TS>
cudaError_t launch_typed(const ReplayParams& p, const LaunchShape& s, cudaStream_t stream) {
  configure<TS>(stream);
  const int64_t bv = p.V < s.BV ? p.V : s.BV;
  const int64_t blocks = p.B * p.HV * (p.V / bv);
  replayssm_step_kernel<TS><<<static_cast<unsigned>(blocks), s.threads, shared_bytes(p, s), stream>>>(p, s);
  return cudaGetLastError();
}

}  // namespace

LaunchShape default_launch_shape(const ReplayParams&) {
  LaunchShape s;
  s.BV = 32;
  s.KT = kThreads;  // one thread per column of a K tile
  s.threads = kThreads;
  return s;
}

std::size_t shared_bytes(const ReplayParams& p, const LaunchShape& s) { return smem_bytes(p, s); }

cudaError_t launch_replayssm(const ReplayParams& p, const LaunchShape& s, cudaStream_t stream) {
  if (p.state.dtype == kBF16) return launch_typed<__nv_bfloat16>(p, s, stream);
  if (p.state.dtype == kF16) return launch_typed<__half>(p, s, stream);
  return launch_typed<float>(p, s, stream);
}

}  // namespace kda::cuda::detail
