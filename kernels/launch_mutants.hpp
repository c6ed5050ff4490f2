// Planted bugs of this kernel's launch layer, one per build (KDA_MUTANT=<n>, set only by the
// mutant plugins of plugins/CMakeLists.txt, never in the shipped library): each is a slip
// that real launchers of decode kernels make when they turn framework tensors into kernel
// parameters. The device code is the shipped one; `kda-harness mutants --backend cuda` must
// catch every one. Each stays inside the tensors it was given (a bug that wrote past them
// would corrupt the device context and stop the run rather than fail a case).
#pragma once
#include "contract/step_args.hpp"
#include "kernels/replayssm_params.hpp"

#define KDA_CUDA_MUTANT_FORCE_FLUSH_IGNORED 1  // force_flush not passed to the kernel
#define KDA_CUDA_MUTANT_SCALE_IGNORED 2        // the query scale not applied
#define KDA_CUDA_MUTANT_L2NORM_IGNORED 3       // use_qk_l2norm_in_kernel dropped
#define KDA_CUDA_MUTANT_BOUNDED_GATE_DROPPED 4 // lower_bound dropped: the softplus gate instead
#define KDA_CUDA_MUTANT_STRIDES_IGNORED 5      // compact strides assumed for the state and rings
#define KDA_CUDA_MUTANT_INDICES_AS_INT32 6     // int64 slot indices read as int32
#define KDA_CUDA_MUTANT_FLAT_A_NOT_SPLIT 7     // a 2-D `a` passed without its [HV, K] split

namespace kda::cuda::detail {

// Compact row-major strides of a [d0, d1, d2, d3] tensor.
inline void compact(TensorRef& t, const DLTensor& like) {
  int64_t s = 1;
  for (int d = like.ndim - 1; d >= 0; --d) t.stride[d] = s, s *= like.shape[d];
}

inline void plant_launch_bug(ReplayParams& p, const StepArgs& a) {
#if defined(KDA_MUTANT) && KDA_MUTANT == KDA_CUDA_MUTANT_FORCE_FLUSH_IGNORED
  p.force_flush = TensorRef{};
#elif defined(KDA_MUTANT) && KDA_MUTANT == KDA_CUDA_MUTANT_SCALE_IGNORED
  p.scale = 1.0f;
#elif defined(KDA_MUTANT) && KDA_MUTANT == KDA_CUDA_MUTANT_L2NORM_IGNORED
  p.l2norm = false;
#elif defined(KDA_MUTANT) && KDA_MUTANT == KDA_CUDA_MUTANT_BOUNDED_GATE_DROPPED
  p.has_lower_bound = false;
#elif defined(KDA_MUTANT) && KDA_MUTANT == KDA_CUDA_MUTANT_STRIDES_IGNORED
  // Compact strides are never larger than the real ones: every access stays inside.
  compact(p.state, *a.initial_state);
  compact(p.d_cache, *a.d_cache);
  compact(p.k_cache, *a.k_cache);
  compact(p.g_cache, *a.g_cache);
#elif defined(KDA_MUTANT) && KDA_MUTANT == KDA_CUDA_MUTANT_INDICES_AS_INT32
  p.indices.dtype = kI32;
#elif defined(KDA_MUTANT) && KDA_MUTANT == KDA_CUDA_MUTANT_FLAT_A_NOT_SPLIT
  if (a.a->ndim == 2) p.a.stride[2] = 0;
#else
  (void)p, (void)a;
#endif
}

}  // namespace kda::cuda::detail
