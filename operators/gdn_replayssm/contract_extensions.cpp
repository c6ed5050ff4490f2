// The harness extensions of gdn_replayssm, checked only after G32 so that they never pre-empt
// a documented error (spec/gdn-replayssm.md, "What the wrapper does NOT check"). Each names
// its catalog id where it fails: error_catalog.json's records point at these lines.
#include <optional>

#include "contract/catalog_message.hpp"
#include "contract/contract_error.hpp"
#include "contract/scalar_type.hpp"
#include "contract/tensor_view.hpp"
#include "contract/validate_internal.hpp"
#include "operators/gdn_replayssm/contract.hpp"
#include "operators/gdn_replayssm/contract_internal.hpp"

namespace kda::gdn_detail {
namespace {

[[noreturn]] void fail(const char* id) { throw ContractError(id, catalog_message(id)); }

}  // namespace

void check_extensions(const StepArgs& args, const Dims& dims, Backend backend, bool is_kda) {
  // K = 0 stopped at G12. V = 0 passes every check and the wrapper's grid computation divides
  // by zero; HV = 0 launches an empty grid over heads that do not exist.
  if (dims.V == 0 || dims.HV == 0) fail(gdn_error_id::kEmptyHeads);

  for (const DLTensor* t : {args.mixed_qkv, args.a, args.b, args.A_log, args.dt_bias,
                            static_cast<const DLTensor*>(args.initial_state),
                            static_cast<const DLTensor*>(args.d_cache), static_cast<const DLTensor*>(args.k_cache),
                            static_cast<const DLTensor*>(args.out)}) {
    const std::optional<ScalarType> type = scalar_type_of(t->dtype);
    if (!type || !is_floating(*type)) fail(error_id::kFloatDtype);
  }
  // Indices: G25, G7 and G8 made them int32 already (int64 is documented here, not an extension).

  // X-STRIDES: G19 and G6 made the rings and out contiguous, G10 initial_state's inner dims;
  // its slot stride is the one left that can overlap.
  const DLTensor* const all[] = {args.mixed_qkv, args.a, args.b, args.A_log, args.dt_bias,
                                 args.initial_state, args.d_cache, args.k_cache, args.g_cache, args.out,
                                 args.ssm_state_indices, args.write_pos, args.force_flush};
  for (const DLTensor* t : all)
    if (t && detail::has_negative_stride(*t)) fail(error_id::kStrides);
  for (const DLTensor* t : {args.initial_state, args.d_cache, args.k_cache, args.g_cache, args.out})
    if (may_self_overlap(*t)) fail(error_id::kStrides);
  // The kernel reads a[row, hv] at row * a.stride(0) + hv and dt_bias[hv] at hv: the GDN path
  // checks neither stride, and a strided gate computes a wrong answer without an error. (The
  // KDA path's K19 wants both contiguous.)
  if (!is_kda && (stride(*args.a, -1) != 1 || stride(*args.dt_bias, 0) != 1)) fail(gdn_error_id::kGateStrides);
  for (const DLTensor* t : all)
    if (t && !detail::extent_fits(*t)) fail(error_id::kExtents);

  // Devices: the wrapper checks none (Triton's launcher refuses CPU tensors, with its own
  // text); the harness wants one device for all, cache_base included (the kernel gets its
  // pointer even when it does not read it), then the backend's kind.
  const DLDevice device = args.mixed_qkv->device;
  const auto fail_device = [is_kda] {  // its message names the operator
    throw ContractError(gdn_error_id::kDevice,
                        catalog_message(gdn_error_id::kDevice, {{"operator", triton_operator_name(is_kda)}}));
  };
  for (const DLTensor* t : all)
    if (t && !same_device(*t, *args.mixed_qkv)) fail_device();
  if (args.cache_base && !same_device(*args.cache_base, *args.mixed_qkv)) fail_device();
  if (backend == Backend::Cpu && device.device_type != kDLCPU) fail(error_id::kBackendCpu);
  if (backend == Backend::Cuda && device.device_type != kDLCUDA) fail(error_id::kBackendCuda);
}

}  // namespace kda::gdn_detail
