// CPU unit test of the bytes-moved model. The expected counts are written out term by term
// from semantics.md (one term per tensor, each at its dtype size), independently of the
// model's code, on a small shape where every term is distinct.
#include "engine/reports/bytes_model.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace kda::engine {
namespace {

// H=1 query head shared by HV=2 value heads, K=4, V=2, L=3; bf16 activations, rings, out;
// f32 state; int32 indices; force_flush present.
ModelShape small() {
  ModelShape s;
  s.H = 1, s.HV = 2, s.K = 4, s.V = 2, s.L = 3;
  s.act = 2, s.state = 4, s.d_ring = 2, s.k_ring = 2, s.out = 2, s.index = 4;
  s.force_flush_present = true;
  return s;
}

constexpr double kIndices = 4 + 4 + 4;           // slot index, write_pos, force_flush
constexpr double kQkv = (2 * 1 * 4 + 2 * 2) * 2;  // q, k (H*K each), v (HV*V), bf16
constexpr double kAb = (2 * 4 + 2) * 2;           // a (HV*K), b (HV), bf16
constexpr double kState = 2 * 2 * 4 * 4;          // HV * V * K, f32
constexpr double kOut = 2 * 2 * 2;                // HV * V, bf16
constexpr double kRecordD = 2 * 2 * 2;            // one d record per value head: HV * V, bf16
constexpr double kRecordG = 2 * 4 * 4;            // one g record per value head: HV * K, f32
constexpr double kRecordK = 1 * 4 * 2;            // one k record per QUERY head: H * K, bf16
constexpr double kParams = (2 + 2 * 4) * 2;       // A_log (HV) + dt_bias (HV*K), once per step

TEST(BytesModel, AppendRowReadsCheckpointAndRecordsBeforeCursorWritesOneRecord) {
  const StepBytes b = row_bytes(small(), RowStep{false, 1, false});
  EXPECT_DOUBLE_EQ(b.read, kIndices + kQkv + kAb + kState + 1 * (kRecordD + kRecordG + kRecordK));
  EXPECT_DOUBLE_EQ(b.write, kOut + kRecordD + kRecordG + kRecordK);
}

TEST(BytesModel, FlushRowReadsTheWholeRingAndWritesTheCheckpoint) {
  const StepBytes b = row_bytes(small(), RowStep{false, 2, true});
  EXPECT_DOUBLE_EQ(b.read, kIndices + kQkv + kAb + kState + 2 * (kRecordD + kRecordG + kRecordK));
  EXPECT_DOUBLE_EQ(b.write, kOut + kState);
}

// GDN (one gate per value head): a is HV elements, a g record one float32 per value head,
// dt_bias HV elements; everything else as KDA's.
constexpr double kAbGdn = (2 + 2) * 2;         // a (HV), b (HV), bf16
constexpr double kRecordGGdn = 2 * 4;          // one g record per value head: HV, f32
constexpr double kParamsGdn = (2 + 2) * 2;     // A_log (HV) + dt_bias (HV), once per step

TEST(BytesModel, GdnAppendMovesOneGatePerValueHead) {
  ModelShape s = small();
  s.scalar_gate = true;
  const StepBytes b = row_bytes(s, RowStep{false, 1, false});
  EXPECT_DOUBLE_EQ(b.read, kIndices + kQkv + kAbGdn + kState + 1 * (kRecordD + kRecordGGdn + kRecordK));
  EXPECT_DOUBLE_EQ(b.write, kOut + kRecordD + kRecordGGdn + kRecordK);
  const StepBytes step = uniform_step_bytes(s, 2, 1, false);
  EXPECT_DOUBLE_EQ(step.read, kParamsGdn + 2 * b.read);
}

TEST(BytesModel, PaddingRowReadsItsIndexAndWritesOnlyOut) {
  const StepBytes b = row_bytes(small(), RowStep{true, 0, false});
  EXPECT_DOUBLE_EQ(b.read, 4);
  EXPECT_DOUBLE_EQ(b.write, kOut);
}

TEST(BytesModel, AbsentForceFlushIsNotRead) {
  ModelShape s = small();
  s.force_flush_present = false;
  EXPECT_DOUBLE_EQ(row_bytes(small(), RowStep{false, 0, false}).read - row_bytes(s, RowStep{false, 0, false}).read, 4);
}

TEST(BytesModel, KeyRecordsCountOncePerQueryHeadGroup) {
  ModelShape grouped = small(), ungrouped = small();
  ungrouped.H = 2;  // one query head per value head: twice the key records, twice q and k
  const StepBytes g = row_bytes(grouped, RowStep{false, 2, true});
  const StepBytes u = row_bytes(ungrouped, RowStep{false, 2, true});
  EXPECT_DOUBLE_EQ(u.read - g.read, 2 * kRecordK + 2 * 1 * 4 * 2);
}

TEST(BytesModel, StepAddsParametersOnceAndEveryRow) {
  const ModelShape s = small();
  const std::vector<RowStep> rows = {{false, 1, false}, {true, 0, false}, {false, 2, true}};
  const StepBytes b = step_bytes(s, rows);
  double read = kParams, write = 0;
  for (const RowStep& r : rows) {
    read += row_bytes(s, r).read;
    write += row_bytes(s, r).write;
  }
  EXPECT_DOUBLE_EQ(b.read, read);
  EXPECT_DOUBLE_EQ(b.write, write);
}

TEST(BytesModel, CycleAverageIsTheMeanOfItsSteps) {
  const ModelShape s = small();
  const int64_t B = 5;
  const StepBytes c = cycle_average_bytes(s, B);
  const StepBytes s0 = uniform_step_bytes(s, B, 0, false), s1 = uniform_step_bytes(s, B, 1, false),
                  s2 = uniform_step_bytes(s, B, 2, true);
  EXPECT_DOUBLE_EQ(c.read, (s0.read + s1.read + s2.read) / 3);
  EXPECT_DOUBLE_EQ(c.write, (s0.write + s1.write + s2.write) / 3);
}

TEST(BytesModel, PlainDecodeReadsAndWritesTheWholeStateEveryStep) {
  const StepBytes p = plain_decode_bytes(small(), 3);
  EXPECT_DOUBLE_EQ(p.read, kParams + 3 * (kIndices + kQkv + kAb + kState));
  EXPECT_DOUBLE_EQ(p.write, 3 * (kOut + kState));
}

// At the production shape the model must show ReplaySSM's claim: a cycle moves less than the
// plain decode, and the state dominates (within 2% of 2 * B * HV * V * K * 4 for L = 1).
TEST(BytesModel, ProductionShapeSavesStateTraffic) {
  ModelShape s;  // H = HV = 32, K = V = 128, f32 state, bf16 rest
  const int64_t B = 256;
  const double state_bytes = 256.0 * 32 * 128 * 128 * 4;
  const double plain = plain_decode_bytes(s, B).total();
  EXPECT_GT(plain, 2 * state_bytes);
  EXPECT_LT(plain, 1.02 * 2 * state_bytes);
  for (int64_t L : {4, 8, 16, 64}) {
    s.L = L;
    const double ratio = cycle_average_bytes(s, B).total() / plain;
    EXPECT_GT(ratio, 0.5) << "L=" << L;  // the checkpoint is still read every token
    EXPECT_LT(ratio, 1.0) << "L=" << L;
  }
}

TEST(BytesModel, RejectsCursorsOutsideTheRingAndAppendsAtTheLastSlot) {
  const ModelShape s = small();
  EXPECT_THROW(row_bytes(s, RowStep{false, 3, true}), std::invalid_argument);
  EXPECT_THROW(row_bytes(s, RowStep{false, -1, false}), std::invalid_argument);
  EXPECT_THROW(row_bytes(s, RowStep{false, 2, false}), std::invalid_argument);
}

}  // namespace
}  // namespace kda::engine
