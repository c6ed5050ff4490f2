// The harness extensions of the two KDA operators, checked only after R10 (kda_replayssm) or
// V22 (kda_packed_decode) so that they never pre-empt a documented error (contract.md,
// "Harness extensions"). Metadata only; the runtime-value extensions live in
// contract/runtime_values.cpp.
#include <optional>

#include "contract/catalog_message.hpp"
#include "contract/scalar_type.hpp"
#include "contract/tensor_view.hpp"
#include "operators/kda_common/contract_stages.hpp"

namespace kda::detail {

void check_extensions(const StepArgs& args, const ValidationState& st, Backend backend) {
  if (!st.a_view_ok) fail(error_id::kViewA, catalog_message(error_id::kViewA));

  for (const DLTensor* t : {args.mixed_qkv, args.a, args.b, args.A_log, args.dt_bias,
                            static_cast<const DLTensor*>(args.initial_state),
                            static_cast<const DLTensor*>(args.d_cache), static_cast<const DLTensor*>(args.k_cache),
                            static_cast<const DLTensor*>(args.out)}) {
    if (!t) continue;  // an operator without rings
    const std::optional<ScalarType> type = scalar_type_of(t->dtype);
    if (!type || !is_floating(*type)) fail(error_id::kFloatDtype, catalog_message(error_id::kFloatDtype));
  }
  const std::optional<ScalarType> index_type = scalar_type_of(args.ssm_state_indices->dtype);
  if (index_type != ScalarType::Int32 && index_type != ScalarType::Int64)
    fail(error_id::kIndexDtype, catalog_message(error_id::kIndexDtype));

  // R5-R7 made the rings 4-D; X-RING-SLOTS compares their slot counts.
  const int64_t slots = args.initial_state->shape[0];
  for (const DLTensor* ring : {args.d_cache, args.k_cache, args.g_cache})
    if (ring && ring->shape[0] != slots) fail(error_id::kRingSlots, catalog_message(error_id::kRingSlots));

  const DLTensor* const all[] = {args.mixed_qkv, args.a, args.b, args.A_log, args.dt_bias,
                                 args.initial_state, args.d_cache, args.k_cache, args.g_cache, args.out,
                                 args.ssm_state_indices, args.write_pos, args.force_flush};
  for (const DLTensor* t : all)
    if (t && has_negative_stride(*t)) fail(error_id::kStrides, catalog_message(error_id::kStrides));
  for (const DLTensor* t : {args.initial_state, args.d_cache, args.k_cache, args.g_cache, args.out})
    if (t && may_self_overlap(*t)) fail(error_id::kStrides, catalog_message(error_id::kStrides));
  for (const DLTensor* t : all)
    if (t && !extent_fits(*t)) fail(error_id::kExtents, catalog_message(error_id::kExtents));

  if (backend == Backend::Any) return;
  const bool cpu = backend == Backend::Cpu;
  const int want = cpu ? kDLCPU : kDLCUDA;
  for (const DLTensor* t : all)
    if (t && t->device.device_type != want)
      fail(cpu ? error_id::kBackendCpu : error_id::kBackendCuda,
           catalog_message(cpu ? error_id::kBackendCpu : error_id::kBackendCuda));
}

}  // namespace kda::detail
