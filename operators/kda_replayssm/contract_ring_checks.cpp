// The ReplaySSM checks of helion_fused_recurrent_kda_replayssm_decode (R1-R10), run after
// validate_packed_decode_inputs has passed.
#include "contract/catalog_message.hpp"
#include "contract/scalar_type.hpp"
#include "contract/tensor_view.hpp"
#include "operators/kda_common/contract_stages.hpp"

namespace kda::detail {
namespace {

bool is_dtype(const DLTensor& t, ScalarType type) {
  const DLDataType want = to_dl(type);
  return t.dtype.code == want.code && t.dtype.bits == want.bits && t.dtype.lanes == want.lanes;
}

// Python's `t.shape[1:] != (x, y, z)`: false only for a 4-D tensor with those trailing sizes.
bool tail_differs(const DLTensor& t, i128 x, i128 y, i128 z) {
  return t.ndim != 4 || t.shape[1] != x || t.shape[2] != y || t.shape[3] != z;
}

}  // namespace

void check_replayssm(const StepArgs& args, ValidationState& st) {
  const DLTensor& wp = *args.write_pos;
  const DLTensor* ff = args.force_flush;
  if (wp.ndim != 1 || !is_dtype(wp, ScalarType::Int32)) fail("R1", catalog_message("R1"));
  if (wp.shape[0] != st.batch) fail("R2", catalog_message("R2", {{"(batch,)", tuple_repr({st.batch})}}));
  if (ff && (ff->ndim != 1 || !is_dtype(*ff, ScalarType::Int32) || ff->shape[0] != st.batch))
    fail("R3", catalog_message("R3"));

  // R4: cache_length = d_cache.size(2). Fewer than 3 dims fails in PyTorch with a framework
  // error; the harness raises R5's message (the shape check that would have caught it).
  const DLTensor& d = *args.d_cache;
  if (d.ndim < 3) fail("R5", catalog_message("R5"));
  st.L = d.shape[2];
  if (st.L < 1) fail("R4", catalog_message("R4"));
  if (tail_differs(d, st.HV, st.L, st.V)) fail("R5", catalog_message("R5"));
  // The key ring is grouped by QUERY heads (H), the others by value heads (HV).
  if (tail_differs(*args.k_cache, st.H, st.L, st.K)) fail("R6", catalog_message("R6"));
  if (tail_differs(*args.g_cache, st.HV, st.L, st.K)) fail("R7", catalog_message("R7"));
  if (!is_dtype(*args.g_cache, ScalarType::Float32)) fail("R8", catalog_message("R8"));

  const DLTensor& qkv = *args.mixed_qkv;
  for (const DLTensor* t : {static_cast<const DLTensor*>(args.d_cache), static_cast<const DLTensor*>(args.k_cache),
                            static_cast<const DLTensor*>(args.g_cache), args.write_pos})
    if (!same_device(*t, qkv)) fail("R9", catalog_message("R9"));
  if (ff && !same_device(*ff, qkv)) fail("R10", catalog_message("R10"));
}

}  // namespace kda::detail
