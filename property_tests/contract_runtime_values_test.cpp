// check_runtime_values(): the extensions on index VALUES (host-resident), row by row.
#include <gtest/gtest.h>

#include "contract/error_catalog.hpp"
#include "contract/host_tensor.hpp"
#include "contract/validate.hpp"
#include "property_tests/contract_runtime_rows.hpp"

namespace kda::test {
namespace {

TEST(ContractRuntimeValues, EachRowRaisesItsExactError) {
  for (const RuntimeRow& row : runtime_rows()) {
    const auto [id, message] = raise_runtime(row);
    EXPECT_EQ(id, row.id) << row.name;
    if (id.empty()) {
      EXPECT_EQ(message, "") << row.name;
    } else {
      EXPECT_EQ(message, find_catalog_entry(id)->message) << row.name;
      EXPECT_EQ(catalog_ids_matching(message), std::vector<std::string>{id}) << row.name;
    }
  }
}

// Strides and byte offsets of the index tensors are honoured: the values read are the
// logical elements, not the raw memory in order.
TEST(ContractRuntimeValues, ReadsStridedIndicesAtTheirOffsets) {
  // Storage {0, 7, 1, 7, 0, 7}: with stride 2 the rows read 0, 1, 0 (a duplicate); read
  // compactly they would be 0, 7, 1 (a slot out of range).
  HostTensor storage(ScalarType::Int32, {6});
  for (int64_t i = 0; i < 6; ++i) storage.set_linear(i, i % 2 ? 7 : (i == 2));
  int64_t shape[] = {3}, strides[] = {2};
  DLTensor idx = storage.dl();
  idx.shape = shape;
  idx.strides = strides;
  HostTensor wp(ScalarType::Int32, {3});
  StepArgs args;
  args.ssm_state_indices = &idx;
  args.write_pos = &wp.dl();
  const Dims dims{3, 1, 1, 16, 16, 4, 5};
  try {
    check_runtime_values(args, dims);
    FAIL() << "expected X-DUP-SLOT";
  } catch (const ContractError& e) {
    EXPECT_EQ(e.id(), "X-DUP-SLOT");
  }
  // A byte offset of one element shifts the rows to 7, 7, 7: slot 7 >= 5.
  idx.byte_offset = 4;
  try {
    check_runtime_values(args, dims);
    FAIL() << "expected X-SLOT-INDEX";
  } catch (const ContractError& e) {
    EXPECT_EQ(e.id(), "X-SLOT-INDEX");
  }
}

TEST(ContractRuntimeValues, RefusesIndicesThatAreNotOnTheHost) {
  HostTensor idx(ScalarType::Int32, {2}), wp(ScalarType::Int32, {2});
  idx.set_linear(1, 1);  // rows name slots 0 and 1
  StepArgs args;
  args.ssm_state_indices = &idx.dl();
  args.write_pos = &wp.dl();
  const Dims dims{2, 1, 1, 16, 16, 4, 5};
  EXPECT_NO_THROW(check_runtime_values(args, dims));
  idx.dl().device = {kDLCUDA, 0};
  EXPECT_THROW(check_runtime_values(args, dims), std::invalid_argument);
  idx.dl().device = {kDLCPU, 0};
  HostTensor meta = HostTensor::metadata(to_dl(ScalarType::Int32), {2}, {1}, {kDLCPU, 0});
  args.write_pos = &meta.dl();  // no data
  EXPECT_THROW(check_runtime_values(args, dims), std::invalid_argument);
  // An operator without rings has no write_pos: only the slot checks run.
  args.write_pos = nullptr;
  EXPECT_NO_THROW(check_runtime_values(args, dims));
  args.ssm_state_indices = nullptr;
  EXPECT_THROW(check_runtime_values(args, dims), std::invalid_argument);
}

}  // namespace
}  // namespace kda::test
