// The kernel's host side (replayssm_launch.hpp): DLPack views to plain parameters, the
// row-status check, the enqueue. No host synchronization, allocation or device->host copy.
#include "kernels/replayssm_launch.hpp"

#include <stdexcept>
#include <string>

#include "contract/scalar_type.hpp"
#include "contract/tensor_view.hpp"
#include "kernels/launch_mutants.hpp"

namespace kda::cuda {
namespace {

using detail::TensorRef;

static_assert(static_cast<int>(ScalarType::Float32) == detail::kF32 &&
              static_cast<int>(ScalarType::BFloat16) == detail::kBF16 &&
              static_cast<int>(ScalarType::Float16) == detail::kF16 &&
              static_cast<int>(ScalarType::Int32) == detail::kI32 &&
              static_cast<int>(ScalarType::Int64) == detail::kI64,
              "kernel dtype codes must follow ScalarType");

// A tensor that holds [outer, K] logically as a flat dim of outer*K (2-D a, 1-D dt_bias) or
// as two dims: the view [.., outer, K] with strides (.., s*K, s) or its own.
TensorRef split_last(const DLTensor& t, int64_t K, int leading) {
  TensorRef r = tensor_ref(t);
  if (t.ndim == leading + 1) {  // flat: split the last dim into (outer, K)
    const int64_t s = r.stride[leading];
    r.stride[leading] = s * K;
    r.stride[leading + 1] = s;
  }
  return r;
}

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("replayssm_decode: ") + what + ": " + cudaGetErrorString(e));
}

}  // namespace

TensorRef tensor_ref(const DLTensor& t) {
  TensorRef r;
  r.ptr = static_cast<char*>(t.data) + t.byte_offset;
  r.dtype = static_cast<int32_t>(*scalar_type_of(t.dtype));
  const auto strides = strides_of(t);
  for (std::size_t d = 0; d < strides.size() && d < 4; ++d) r.stride[d] = strides[d];
  return r;
}

void check_row_status(const DLTensor& st, const DLTensor& like, int64_t B) {
  const auto type = scalar_type_of(st.dtype);
  if (st.data == nullptr || st.ndim != 1 || st.shape[0] != B || !type || *type != ScalarType::Int32)
    throw std::invalid_argument("replayssm_decode: row_status must be a 1-D int32 tensor of B elements");
  if (!same_device(st, like)) throw std::invalid_argument("replayssm_decode: row_status must be on the inputs' device");
  if (stride(st, 0) < 0 || (B > 1 && stride(st, 0) == 0))
    throw std::invalid_argument("replayssm_decode: row_status must have a positive stride");
}

detail::ReplayParams replayssm_params(const StepArgs& a, const Dims& d, DLTensor* row_status, Gates gates) {
  detail::ReplayParams p;
  p.B = d.B, p.H = d.H, p.HV = d.HV, p.K = d.K, p.V = d.V, p.L = d.L, p.slots = d.slots;
  const bool per_head = gates == Gates::PerHead;
  p.scalar_gate = per_head;
  p.qkv = tensor_ref(*a.mixed_qkv);
  p.a = per_head ? tensor_ref(*a.a) : split_last(*a.a, d.K, 1);
  p.b = tensor_ref(*a.b);
  p.A_log = tensor_ref(*a.A_log);
  p.dt_bias = per_head ? tensor_ref(*a.dt_bias) : split_last(*a.dt_bias, d.K, 0);
  p.state = tensor_ref(*a.initial_state);
  if (a.d_cache != nullptr) p.d_cache = tensor_ref(*a.d_cache);  // absent for an operator without rings
  if (a.k_cache != nullptr) p.k_cache = tensor_ref(*a.k_cache);
  if (a.g_cache != nullptr) p.g_cache = tensor_ref(*a.g_cache);
  p.out = tensor_ref(*a.out);  // [B, 1, HV, V]: drop the size-1 dim
  p.out.stride[1] = p.out.stride[2];
  p.out.stride[2] = p.out.stride[3];
  p.out.stride[3] = 0;
  p.indices = tensor_ref(*a.ssm_state_indices);
  if (a.write_pos != nullptr) p.write_pos = tensor_ref(*a.write_pos);
  if (a.force_flush != nullptr) p.force_flush = tensor_ref(*a.force_flush);
  if (row_status != nullptr) p.row_status = tensor_ref(*row_status);
  p.scale = static_cast<float>(a.scale);
  p.l2norm = a.use_qk_l2norm_in_kernel;
  p.has_lower_bound = a.lower_bound.has_value();
  p.lower_bound = static_cast<float>(a.lower_bound.value_or(0.0));
  detail::plant_launch_bug(p, a);  // nothing, except in a mutant build
  detail::dense_layouts(p);
  return p;
}

namespace detail {

void dense_layouts(ReplayParams& p) {
  // t's rows of row_elems elements, its other dims at strides stride[0..2]: 16-byte chunks?
  auto dense = [](const TensorRef& t, int64_t row_elems) {
    const int64_t es = float_dtype_bytes(t.dtype);
    if (t.ptr == nullptr || t.stride[3] != 1 || reinterpret_cast<uintptr_t>(t.ptr) % 16 != 0) return false;
    for (int d = 0; d < 3; ++d)
      if (t.stride[d] < 0 || (t.stride[d] * es) % 16 != 0) return false;
    return row_elems > 0 && (row_elems * es) % 16 == 0;
  };
  const int64_t cta_rows = p.V < 128 ? p.V : 128;  // a CTA's state rows (head_cta.cuh: kCtaRows)
  // A scalar gate's g_cache (K stride 0) is no dense row, and needs none: its records are
  // staged one float each (stage_records), so only d and k decide then.
  p.rings_dense = (p.scalar_gate || dense(p.g_cache, p.K)) && dense(p.k_cache, p.K) && dense(p.d_cache, cta_rows);
  p.state_dense = dense(p.state, p.K);
}

}  // namespace detail

void enqueue(const StepArgs& args, const detail::ReplayParams& p, cudaStream_t stream) {
  if (detail::replayssm_blocks(p) > 0x7fffffff)
    throw std::invalid_argument("replayssm_decode: B*HV*V tiles exceed the grid limit");

  // Launch on the tensors' device; restore the caller's current device afterwards.
  int current = 0;
  check_cuda(cudaGetDevice(&current), "cudaGetDevice");
  const int device = static_cast<int>(args.mixed_qkv->device.device_id);
  if (device != current) check_cuda(cudaSetDevice(device), "cudaSetDevice");
  const cudaError_t launched = detail::launch_replayssm(p, stream);
  if (device != current) check_cuda(cudaSetDevice(current), "cudaSetDevice (restore)");
  check_cuda(launched, "kernel launch");
}

}  // namespace kda::cuda
