// Adversarial runtime values: slot indices past the pool (just past, and the dtype's
// maximum), negative and past-the-end cursors, duplicate slots. validate() cannot see
// values, so the kernel judges each row on the device: such rows must be flagged in the
// status tensor, write zeros to out and touch nothing else (footprint and guard checks),
// while the other rows of the same launch still match the reference.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

#include "property_tests/rc_chooser.hpp"
#include "property_tests/kernel_gpu_env.hpp"
#include "engine/backends/cuda_backend.hpp"
#include "engine/driver/run_case.hpp"

namespace kda::testing {
using ::kda::engine::CaseReport;
using ::kda::engine::run_vs_reference;
using ::kda::engine::make_cuda_backend;
namespace {

// One choice per (token, row): 0..5 leave the row alone, else one kind of bad value.
// Duplicates (choice 8) are made last and copy the slot of a row that keeps its own, so the
// pair really shares a slot (a row must never end up alone on another row's slot with its
// own cursor: that is a valid call whose ring records the caller never wrote).
void mutate_rows(CaseTensors& c, const std::vector<int>& choice) {
  const CaseConfig& cfg = c.config;
  HostTensor& idx = c.ssm_state_indices;
  for (int64_t row = 0; row < cfg.B; ++row) {
    switch (choice[row]) {
      case 6: idx.set_linear(row, static_cast<double>(cfg.slots)); break;  // just past the pool
      case 7: idx.set_linear(row, cfg.index_dtype == ScalarType::Int64 ? 9.2e18 : 2147483647.0); break;
      case 9: c.write_pos.set_linear(row, -1); break;
      case 10: c.write_pos.set_linear(row, static_cast<double>(cfg.L)); break;
      case 11: c.write_pos.set_linear(row, -2147483648.0); break;
      case 12: c.write_pos.set_linear(row, 2147483000.0); break;
      default: break;
    }
  }
  int64_t keeper = -1;  // a row with a slot that no duplicate mutation moves
  for (int64_t row = 0; row < cfg.B && keeper < 0; ++row)
    if (choice[row] != 8 && idx.get_linear(row) >= 0) keeper = row;
  for (int64_t row = 0; row < cfg.B; ++row)
    if (choice[row] == 8) idx.set_linear(row, keeper >= 0 ? idx.get_linear(keeper) : static_cast<double>(cfg.slots + 3));
}

TEST(KernelAdversarial, BadRowsAreFlaggedAndTouchNothing) {
  KDA_REQUIRE_GPU();
  int64_t rollouts = 0, rejected = 0;
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = static_cast<int>(env_int("KDA_GPU_ADVERSARIAL_ROLLOUTS", 200));
  rc::detail::TestMetadata meta;
  meta.id = meta.description = "KernelAdversarial/BadRowsAreFlaggedAndTouchNothing";
  const auto result = rc::detail::checkTestable(
      [&] {
        const CaseConfig c = *gen_case(engine::limits::gpu_suites(1e6));
        const auto choices = *rc::gen::container<std::vector<int>>(
            static_cast<std::size_t>(c.steps * c.B), rc::gen::inRange(0, 13));
        auto backend = make_cuda_backend(-1);
        const CaseReport r = run_vs_reference(c, *backend, [&](CaseTensors& kc, int64_t t) {
          mutate_rows(kc, std::vector<int>(choices.begin() + t * c.B, choices.begin() + (t + 1) * c.B));
        });
        if (!r.pass()) RC_FAIL(r.summary());
        ++rollouts;
        rejected += r.rejected_rows;
      },
      meta, params);
  std::printf("adversarial rollouts: %lld, rejected rows flagged and checked: %lld\n",
              static_cast<long long>(rollouts), static_cast<long long>(rejected));
  EXPECT_GT(rejected, 0);
  if (!result.is<rc::detail::SuccessResult>()) {
    std::ostringstream msg;
    rc::detail::printResultMessage(result, msg);
    FAIL() << msg.str();
  }
}

// A fixed batch where every row is bad in a different way, and two rows share a slot: each
// gets exactly its flags, and (checked by the rollout driver) nothing but zeros in out.
TEST(KernelAdversarial, EveryFlagOnce) {
  KDA_REQUIRE_GPU();
  CaseConfig c = parse_case_config("B=6 H=1 HV=2 K=16 V=16 L=3 slots=6 steps=1 pad=0 rcur=0 ff=1 flush=0");
  auto backend = make_cuda_backend(-1);
  const CaseReport r = run_vs_reference(c, *backend, [](CaseTensors& kc, int64_t) {
    kc.ssm_state_indices.set_linear(0, 6);    // slot == slots
    kc.write_pos.set_linear(1, 3);            // cursor == L
    kc.write_pos.set_linear(2, -1);           // negative cursor
    kc.ssm_state_indices.set_linear(4, kc.ssm_state_indices.get_linear(3));  // rows 3 and 4 share a slot
    kc.ssm_state_indices.set_linear(5, -1);   // padding: not an error
  });
  EXPECT_TRUE(r.pass()) << r.summary();
  EXPECT_EQ(r.rejected_rows, 5);
  const std::vector<int32_t> expected = {2, 4, 4, 8, 8, 1};
  EXPECT_EQ(backend->row_status().value_or(std::vector<int32_t>{}), expected);
}

// More rows than threads in a CTA: the duplicate scan walks the batch in several strides
// (600 CTAs: the 8-warp kernel; a 16-bit state on 1,200: the 4-warp one, in batches).
TEST(KernelAdversarial, LargeBatchDuplicateScan) {
  KDA_REQUIRE_GPU();
  for (const char* line : {"B=300 H=1 HV=2 K=8 V=8 L=4 slots=310 steps=3 pad=0.1 ff=1 flush=0.2",
                           "B=300 H=1 HV=4 K=8 V=8 L=4 slots=310 steps=3 state=bf16 pad=0.1 ff=1 flush=0.2"}) {
    auto backend = make_cuda_backend(-1);
    const CaseReport r = run_vs_reference(parse_case_config(line), *backend, [](CaseTensors& kc, int64_t t) {
      HostTensor& idx = kc.ssm_state_indices;
      int64_t named = 0;  // the first row that names a slot
      while (idx.get_linear(named) < 0) ++named;
      idx.set_linear(299 - t, idx.get_linear(named));  // shares that row's slot
      idx.set_linear(150, 310.0 + t);                 // past the pool
    });
    EXPECT_TRUE(r.pass()) << line << ": " << r.summary();
    EXPECT_GE(r.rejected_rows, 3 * 3) << line;
  }
}

}  // namespace
}  // namespace kda::testing
