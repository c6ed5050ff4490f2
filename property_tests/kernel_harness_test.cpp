// The GPU suites' checking machinery, tested on the CPU (so CI runs it): the rollout driver
// of engine/driver/run_case.hpp with the CPU reference as the subject passes, and each kind of fault
// a kernel could have (a byte written outside its footprint, a wrong row status, an output
// left unwritten, a perturbed checkpoint or ring record, a damaged guard region) is caught.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstring>
#include <vector>

#include "contract/validate.hpp"
#include "property_tests/rc_chooser.hpp"
#include "engine/backends/function_backend.hpp"
#include "engine/driver/run_case.hpp"
#include "engine/description/row_plan.hpp"
#include "operators/replayssm_family/row_plan.hpp"
#include "operators/kda_replayssm/reference_step.hpp"

namespace kda::testing {
using ::kda::engine::CaseReport;
using ::kda::engine::run_vs_reference;
using ::kda::engine::plan_rows;
using ::kda::engine::RowPlan;
using ::kda::engine::FunctionBackend;
using ::kda::engine::StepMutator;
namespace {

// The kernel's contract carried out on the host: rows the plan rejects are skipped (zeros in
// out, as padding), the status is the plan's. `fault` runs after each step.
struct CpuSubject {
  std::vector<int32_t> status;
  bool guards = true;
  std::function<void(const StepArgs&, const std::vector<RowPlan>&)> fault;

  FunctionBackend backend() {
    FunctionBackend b("cpu-subject", [this](const StepArgs& host) { step(host); });
    b.row_status_ = [this] { return status; };
    b.guards_ = [this] { return guards; };
    return b;
  }
  void step(const StepArgs& host) {
    const Dims d = validate(host, Backend::Cpu);
    const std::vector<RowPlan> plans = plan_rows(host, d);
    HostTensor indices(*scalar_type_of(host.ssm_state_indices->dtype), {d.B});
    status.assign(d.B, 0);
    for (int64_t row = 0; row < d.B; ++row) {
      status[row] = plans[row].status;
      indices.set_linear(row, plans[row].status == 0 ? static_cast<double>(plans[row].slot) : -1.0);
    }
    StepArgs args = host;
    args.ssm_state_indices = &indices.dl();
    reference::replayssm_step(args, reference::Rounding::Kernel);
    if (fault) fault(host, plans);
  }
};

CaseReport run_vs_reference_with(const CaseConfig& c, CpuSubject& cpu, const StepMutator& mutate = nullptr) {
  FunctionBackend b = cpu.backend();
  return run_vs_reference(c, b, mutate);
}

std::byte* at(const DLTensor& t, std::initializer_list<int64_t> index) {
  int64_t off = 0, d = 0;
  for (int64_t i : index) off += i * t.strides[d++];
  return static_cast<std::byte*>(t.data) + off * (t.dtype.bits / 8);
}

void scale_float32(const DLTensor& t, std::initializer_list<int64_t> index, float by) {
  float v;
  std::memcpy(&v, at(t, index), 4);
  v *= by;
  std::memcpy(at(t, index), &v, 4);
}

RC_GTEST_PROP(KernelHarness, ReferenceAsSubjectPasses, ()) {
  const CaseConfig c = *gen_case(engine::limits::gpu_suites(2e5));
  const bool adversarial = *rc::gen::arbitrary<bool>();
  const auto choice = *rc::gen::inRange(0, 4);
  CpuSubject cpu;
  const CaseReport r = run_vs_reference_with(c, cpu, [&](CaseTensors& kc, int64_t t) {
    if (!adversarial) return;
    if (choice == 0) kc.ssm_state_indices.set_linear(t % c.B, static_cast<double>(c.slots));
    if (choice == 1) kc.write_pos.set_linear(t % c.B, -1);
    if (choice == 2 && c.B > 1 && kc.ssm_state_indices.get_linear(0) >= 0)
      kc.ssm_state_indices.set_linear(1, kc.ssm_state_indices.get_linear(0));
  });
  RC_ASSERT(r.pass());
}

const char* kFlushEveryStep = "B=3 H=1 HV=2 K=8 V=8 L=1 slots=4 act=f32 state=f32 ring=f32 out=f32 pad=0 steps=3";
const char* kAppends = "B=3 H=1 HV=2 K=8 V=8 L=8 slots=4 act=f32 state=f32 ring=f32 out=f32 pad=0 rcur=0 ff=0 steps=3";

TEST(KernelHarness, CatchesAByteWrittenIntoAnEnvelopeGap) {
  CpuSubject cpu;
  cpu.fault = [](const StepArgs& a, const std::vector<RowPlan>&) {
    const auto* s = a.initial_state;  // slot stride = HV*V*K + 257: the gap follows slot 0's elements
    static_cast<std::byte*>(s->data)[(s->shape[1] * s->shape[2] * s->shape[3] + 3) * 4] ^= std::byte{0x5A};
  };
  const auto r = run_vs_reference_with(parse_case_config(std::string(kAppends) + " env=1"), cpu);
  EXPECT_FALSE(r.pass());
  EXPECT_NE(r.failure.find("initial_state"), std::string::npos) << r.summary();
}

TEST(KernelHarness, CatchesAWrongRowStatus) {
  CpuSubject cpu;
  cpu.fault = [&cpu](const StepArgs&, const std::vector<RowPlan>&) { cpu.status.assign(cpu.status.size(), 0); };
  const auto r = run_vs_reference_with(parse_case_config(kAppends), cpu, [](CaseTensors& kc, int64_t) {
    kc.write_pos.set_linear(0, 99);
  });
  EXPECT_NE(r.failure.find("status"), std::string::npos) << r.summary();
}

TEST(KernelHarness, CatchesAnUnwrittenOutput) {
  CpuSubject cpu;
  cpu.fault = [](const StepArgs& a, const std::vector<RowPlan>&) { std::memset(a.out->data, 0xFF, 4); };
  const auto r = run_vs_reference_with(parse_case_config(kAppends), cpu);
  EXPECT_FALSE(r.out.pass) << r.summary();
}

TEST(KernelHarness, CatchesAPerturbedCheckpoint) {
  CpuSubject cpu;
  cpu.fault = [](const StepArgs& a, const std::vector<RowPlan>& plans) {
    for (const RowPlan& p : plans)
      if (p.accepted() && p.flush) scale_float32(*a.initial_state, {p.slot, 0, 0, 0}, 1.001f);
  };
  const auto r = run_vs_reference_with(parse_case_config(kFlushEveryStep), cpu);
  EXPECT_FALSE(r.state.pass) << r.summary();
}

TEST(KernelHarness, CatchesAPerturbedRingRecord) {
  CpuSubject cpu;
  cpu.fault = [](const StepArgs& a, const std::vector<RowPlan>& plans) {
    for (const RowPlan& p : plans)
      if (p.accepted() && !p.flush) scale_float32(*a.d_cache, {p.slot, 1, p.cursor, 0}, 1.001f);
  };
  const auto r = run_vs_reference_with(parse_case_config(kAppends), cpu);
  EXPECT_FALSE(r.d_ring.pass) << r.summary();
}

// The g records' floor (sqrt(K) times float32's smallest normal, for subnormal gates) leaves
// a normal gate judged relatively: one of 8 elements 1e-3 off (~4e-4 of the record) is caught
// (the bound, kGateRecordBound, is 5.4e-5).
TEST(KernelHarness, CatchesAPerturbedGateRecord) {
  CpuSubject cpu;
  cpu.fault = [](const StepArgs& a, const std::vector<RowPlan>& plans) {
    for (const RowPlan& p : plans)
      if (p.accepted() && !p.flush) scale_float32(*a.g_cache, {p.slot, 1, p.cursor, 0}, 1.001f);
  };
  const auto r = run_vs_reference_with(parse_case_config(kAppends), cpu);
  EXPECT_FALSE(r.g_ring.pass) << r.summary();
}

TEST(KernelHarness, CatchesADamagedGuard) {
  CpuSubject cpu;
  cpu.guards = false;
  const auto r = run_vs_reference_with(parse_case_config(kAppends), cpu);
  EXPECT_NE(r.failure.find("guard"), std::string::npos) << r.summary();
}

}  // namespace
}  // namespace kda::testing
