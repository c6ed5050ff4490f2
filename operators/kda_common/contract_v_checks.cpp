// The wrapper's preparation (P0, W1-W3) and validate_packed_decode_inputs (V1-V22), in
// contract.md's order. Each check is a transcription of the Python condition; the comments
// say where the flattened views of `a` and `dt_bias` change what a check sees.
#include <fmt/format.h>

#include "contract/catalog_message.hpp"
#include "contract/tensor_view.hpp"
#include "contract/torch_view.hpp"
#include "operators/kda_common/contract_stages.hpp"

namespace kda::detail {
namespace {

bool is_power_of_two(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

// a.numel() % batch without forming the (possibly enormous) product.
i128 numel_mod(const DLTensor& t, int64_t batch) {
  i128 r = 1 % batch;
  for (int64_t d = 0; d < t.ndim; ++d) r = (r * (t.shape[d] % batch)) % batch;
  return r;
}

// W1-W3: shape checks of the raw `a`/`dt_bias`, then their flattened views.
void prepare_views(const StepArgs& args, ValidationState& st) {
  const DLTensor& a = *args.a;
  const DLTensor& dt = *args.dt_bias;
  if ((a.ndim != 2 && a.ndim != 3) || !is_contiguous(a))
    fail("W1", catalog_message("W1"));
  if ((dt.ndim != 1 && dt.ndim != 2) || !is_contiguous(dt))
    fail("W2", catalog_message("W2"));

  // W3, a.view(batch, -1): impossible for batch 0 or a.numel() % batch != 0. Ruling: the
  // documented checks then go on as if the flat `a` were contiguous with shape[0] == batch
  // (V3, V4, V10 pass for it), V15 is skipped, and X-VIEW-A fires after R10.
  st.a_view_ok = st.batch > 0 && numel_mod(a, st.batch) == 0;
  if (st.a_view_ok) {
    const i128 n = product_sat(a.shape, a.ndim);
    st.flat_a_cols = n < kSaturated ? n / st.batch : kSaturated;  // saturated only for absurd sizes
    const auto strides = view_strides(a, {st.batch, st.flat_a_cols});
    st.a_view_ok = strides.has_value();
    if (strides) st.flat_a_last_stride = strides->back();
  }
  // dt_bias.view(-1) never fails for a contiguous dt_bias; rank <= 2 keeps numel exact.
  st.flat_dt_numel = product_sat(dt.shape, dt.ndim);
  const auto dt_strides = view_strides(dt, {st.flat_dt_numel});
  st.flat_dt_stride = dt_strides ? dt_strides->front() : 1;
}

// `a` and `dt_bias` as given (the plain packed decode): V3-V6, V10, V15 and V18 read them raw.
void raw_views(const StepArgs& args, ValidationState& st) {
  const DLTensor& a = *args.a;
  const DLTensor& dt = *args.dt_bias;
  st.a_ndim = a.ndim;
  st.a_rows = a.ndim >= 1 ? a.shape[0] : 0;
  st.flat_a_cols = a.ndim == 2 ? a.shape[1] : 0;
  st.flat_a_last_stride = a.ndim >= 1 ? stride(a, -1) : 1;
  st.dt_ndim = dt.ndim;
  st.flat_dt_numel = product_sat(dt.shape, dt.ndim);
  st.flat_dt_stride = dt.ndim >= 1 ? stride(dt, 0) : 1;
}

// V1-V13: ranks, strides, devices and batch sizes.
void check_layout(const StepArgs& args, const ValidationState& st) {
  const DLTensor& qkv = *args.mixed_qkv;
  const DLTensor& b = *args.b;
  const DLTensor& A_log = *args.A_log;
  const DLTensor& idx = *args.ssm_state_indices;
  const DLTensor& state = *args.initial_state;
  if (qkv.ndim != 2) fail("V1", catalog_message("V1", {{"ndim", qkv.ndim}}));
  if (stride(qkv, -1) != 1) fail("V2", catalog_message("V2"));
  // The flat `a` is 2-D by construction.
  if (st.a_ndim != 2 || b.ndim != 2) fail("V3", catalog_message("V3", {{"a.ndim", st.a_ndim}, {"b.ndim", b.ndim}}));
  if (st.flat_a_last_stride != 1 || stride(b, -1) != 1) fail("V4", catalog_message("V4"));
  // The flat dt_bias is 1-D by construction.
  if (A_log.ndim != 1 || st.dt_ndim != 1) fail("V5", catalog_message("V5"));
  if (stride(A_log, 0) != 1 || st.flat_dt_stride != 1) fail("V6", catalog_message("V6"));
  if (idx.ndim != 1) fail("V7", catalog_message("V7", {{"ndim", idx.ndim}}));
  if (!is_contiguous(*args.out)) fail("V8", catalog_message("V8"));
  for (const DLTensor* t : {args.a, args.b, args.A_log, args.dt_bias,
                            static_cast<const DLTensor*>(args.initial_state),
                            static_cast<const DLTensor*>(args.out), args.ssm_state_indices})
    if (!same_device(*t, qkv)) fail("V9", catalog_message("V9"));
  // The flat a.shape[0] is batch by construction.
  if (st.a_rows != st.batch || b.shape[0] != st.batch)
    fail("V10", catalog_message("V10", {{"B", st.batch}, {"a0", st.a_rows}, {"b0", b.shape[0]}}));
  if (idx.shape[0] != st.batch)
    fail("V11",
         catalog_message("V11", {{"tuple(ssm_state_indices.shape)", tuple_repr(shape_of(idx))}, {"B", st.batch}}));
  if (state.ndim != 4) fail("V12", catalog_message("V12", {{"ndim", state.ndim}}));
  if (stride(state, -1) != 1) fail("V13", catalog_message("V13"));
}

// V14-V22: head dims against initial_state, then the packing of mixed_qkv.
void check_heads(const StepArgs& args, ValidationState& st) {
  const DLTensor& state = *args.initial_state;
  const DLTensor& b = *args.b;
  st.HV = state.shape[1];
  st.V = state.shape[2];
  st.K = state.shape[3];
  const int64_t HV = st.HV, V = st.V, K = st.K;
  if (!is_power_of_two(K) || !is_power_of_two(V))
    fail("V14", catalog_message("V14", {{"K", K}, {"V", V}}));
  const i128 HVK = static_cast<i128>(HV) * K;
  if (st.a_view_ok && st.flat_a_cols != HVK)
    fail("V15", catalog_message("V15", {{"HV", HV},
                                        {"K", K},
                                        {"tuple(a.shape)", fmt::format("({}, {})", st.a_rows, to_string(st.flat_a_cols))}}));
  if (b.shape[1] != HV)
    fail("V16", catalog_message("V16", {{"HV", HV}, {"tuple(b.shape)", tuple_repr(shape_of(b))}}));
  if (args.A_log->shape[0] != HV)
    fail("V17", catalog_message("V17", {{"HV", HV}, {"numel", args.A_log->shape[0]}}));
  if (st.flat_dt_numel != HVK)
    fail("V18", catalog_message("V18", {{"HV*K", to_string(HVK)}, {"numel", to_string(st.flat_dt_numel)}}));
  const std::vector<int64_t> out_shape{st.batch, 1, HV, V};
  if (shape_of(*args.out) != out_shape)
    fail("V19", catalog_message("V19", {{"(B, 1, HV, V)", tuple_repr(out_shape)},
                                        {"tuple(out.shape)", tuple_repr(shape_of(*args.out))}}));
  const int64_t qkv_dim = args.mixed_qkv->shape[1];
  const i128 qk_dim = static_cast<i128>(qkv_dim) - static_cast<i128>(HV) * V;
  if (qk_dim <= 0 || qk_dim % 2 != 0)
    fail("V20", catalog_message("V20", {{"qkv_dim", qkv_dim}, {"HV", HV}, {"V", V}}));
  const i128 q_dim = qk_dim / 2;
  if (q_dim % K != 0)
    fail("V21", catalog_message("V21", {{"q_dim", to_string(q_dim)}, {"K", K}}));
  st.H = q_dim / K;
  if (st.H <= 0 || HV % st.H != 0)
    fail("V22", catalog_message("V22", {{"H", to_string(st.H)}, {"HV", HV}}));
}

}  // namespace

void check_packed(const StepArgs& args, ValidationState& st) {
  // P0: batch = mixed_qkv.size(0); a 0-d tensor gets V1's message (PyTorch: framework error).
  if (args.mixed_qkv->ndim == 0) fail("V1", catalog_message("V1", {{"ndim", 0}}));
  st.batch = args.mixed_qkv->shape[0];
  if (st.flatten_views) {
    prepare_views(args, st);
    st.a_rows = st.batch;
  } else {
    raw_views(args, st);
  }
  check_layout(args, st);
  check_heads(args, st);
}

}  // namespace kda::detail
