// Inputs for check_runtime_values(): index values held in host tensors with data.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "contract/scalar_type.hpp"

namespace kda::test {

struct RuntimeRow {
  const char* name;
  std::vector<int64_t> slots;      // ssm_state_indices (negative = padding row)
  std::vector<int64_t> write_pos;  // cursors
  ScalarType index_type;
  int64_t slot_count, L;
  const char* id;  // "" = accepted; the message is the catalog's
};

const std::vector<RuntimeRow>& runtime_rows();
// Runs check_runtime_values() on the row's values: {id, message}, empty when accepted.
std::pair<std::string, std::string> raise_runtime(const RuntimeRow& row);

}  // namespace kda::test
