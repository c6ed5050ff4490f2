// check_runtime_values(): the extensions on VALUES of the index tensors, for callers that
// hold them on the host (the reference). The kernel cannot raise on values without a
// device-to-host copy, so it reports per row instead (contract.md, "Harness extensions").
#include <stdexcept>
#include <unordered_set>

#include "contract/catalog_message.hpp"
#include "contract/scalar_type.hpp"
#include "contract/tensor_view.hpp"
#include "contract/validate.hpp"

namespace kda {
namespace {

void require_host(const DLTensor& t, const char* name, int64_t rows) {
  if (t.device.device_type != kDLCPU || (rows > 0 && t.data == nullptr))
    throw std::invalid_argument(std::string("check_runtime_values: `") + name + "` is not host-resident data");
}

}  // namespace

void check_runtime_values(const StepArgs& args, const Dims& dims) {
  // write_pos is null for an operator without rings (the plain packed decode).
  if (!args.ssm_state_indices) throw std::invalid_argument("check_runtime_values: ssm_state_indices is null");
  const DLTensor& idx = *args.ssm_state_indices;
  require_host(idx, "ssm_state_indices", dims.B);
  if (args.write_pos) require_host(*args.write_pos, "write_pos", dims.B);
  const DLTensor* base = args.circular_replay ? args.cache_base : nullptr;  // read only under circular replay
  if (base) require_host(*base, "cache_base", dims.B);

  std::unordered_set<int64_t> seen;
  for (int64_t row = 0; row < dims.B; ++row) {
    const int64_t slot = index_value(idx, row);
    if (slot < 0) continue;  // padding row: nothing else about it matters
    if (slot >= dims.slots) throw ContractError(error_id::kSlotIndex, catalog_message(error_id::kSlotIndex));
    if (args.write_pos) {
      const int64_t pos = index_value(*args.write_pos, row);
      if (pos < 0 || pos > dims.L - 1) throw ContractError(error_id::kWritePos, catalog_message(error_id::kWritePos));
    }
    if (base) {
      const int64_t b = index_value(*base, row);
      if (b < 0 || b > dims.L - 1) throw ContractError(error_id::kCacheBase, catalog_message(error_id::kCacheBase));
    }
    if (!seen.insert(slot).second) throw ContractError(error_id::kDuplicateSlot, catalog_message(error_id::kDuplicateSlot));
  }
}

}  // namespace kda
