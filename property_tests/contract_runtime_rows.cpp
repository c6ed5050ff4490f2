#include "property_tests/contract_runtime_rows.hpp"

#include "contract/host_tensor.hpp"
#include "contract/validate.hpp"

namespace kda::test {

const std::vector<RuntimeRow>& runtime_rows() {
  using enum ScalarType;
  static const std::vector<RuntimeRow> r = {
      {"all live, distinct, in range", {0, 1, 4}, {0, 3, 2}, Int32, 5, 4, ""},
      {"padding rows ignore everything", {-1, 2, -7}, {99, 0, -5}, Int64, 3, 1, ""},
      {"padding rows may repeat", {-1, -1, 0}, {0, 0, 0}, Int32, 1, 1, ""},
      {"no rows", {}, {}, Int32, 0, 1, ""},
      {"slot == slots", {0, 5}, {0, 0}, Int32, 5, 4, "X-SLOT-INDEX"},
      {"int64 slot beyond int32", {int64_t{1} << 40}, {0}, Int64, 5, 4, "X-SLOT-INDEX"},
      {"live row with no slots at all", {-1, 0}, {0, 0}, Int32, 0, 4, "X-SLOT-INDEX"},
      {"cursor == L", {0, 1}, {0, 4}, Int32, 5, 4, "X-WRITE-POS"},
      {"negative cursor", {3}, {-1}, Int64, 5, 4, "X-WRITE-POS"},
      {"duplicate live slot", {2, -1, 2}, {0, 0, 1}, Int32, 5, 4, "X-DUP-SLOT"},
      {"row order: an earlier duplicate before a later range error", {1, 1, 9}, {0, 0, 0}, Int32, 5, 4, "X-DUP-SLOT"},
      {"row order: earlier row's cursor first", {1, 9}, {7, 0}, Int32, 5, 4, "X-WRITE-POS"},
      {"within a row: slot range before cursor", {9}, {7}, Int32, 5, 4, "X-SLOT-INDEX"},
      {"within a row: cursor before duplicate", {1, 1}, {0, 4}, Int32, 5, 4, "X-WRITE-POS"},
  };
  return r;
}

std::pair<std::string, std::string> raise_runtime(const RuntimeRow& row) {
  const int64_t B = static_cast<int64_t>(row.slots.size());
  HostTensor idx(row.index_type, {B}), wp(ScalarType::Int32, {B});
  for (int64_t i = 0; i < B; ++i) {
    idx.set_linear(i, static_cast<double>(row.slots[i]));
    wp.set_linear(i, static_cast<double>(row.write_pos[i]));
  }
  StepArgs args;
  args.ssm_state_indices = &idx.dl();
  args.write_pos = &wp.dl();
  const Dims dims{B, 1, 1, 16, 16, row.L, row.slot_count};
  try {
    check_runtime_values(args, dims);
    return {"", ""};
  } catch (const ContractError& e) {
    return {e.id(), e.what()};
  }
}

}  // namespace kda::test
