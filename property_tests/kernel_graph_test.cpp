// CUDA graph capture: the launcher enqueues without host syncs, allocations or device->host
// copies, so a step captured once (global capture mode, which rejects such calls) and
// replayed with new tokens, cursors and force_flush values gives the same bytes as eager
// launches, on the envelope (padded-slot) state with page-major rings.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "engine/backends/device_mirror.hpp"
#include "engine/description/row_plan.hpp"
#include "kernels/replayssm_decode.hpp"
#include "operators/replayssm_family/case_tensors.hpp"
#include "operators/replayssm_family/row_plan.hpp"
#include "property_tests/kernel_gpu_env.hpp"

namespace kda::testing {
using ::kda::engine::DeviceMirror;
using ::kda::engine::plan_rows;
using ::kda::engine::RowPlan;
using ::kda::engine::check_cuda;
namespace {

bool same_bytes(const HostTensor& x, const HostTensor& y) {
  return x.storage().size() == y.storage().size() &&
         std::memcmp(x.storage().data(), y.storage().data(), x.storage().size()) == 0;
}

void replay_matches_eager(const CaseConfig& c) {
  CaseTensors eager = materialize_replayssm_case(c), graph = materialize_replayssm_case(c);
  DeviceMirror eager_dev, graph_dev;
  const StepArgs dev = graph_dev.upload(graph.args());
  DLTensor* status = graph_dev.status_tensor(c.B);
  cudaStream_t s = graph_dev.stream();
  check_cuda(cudaDeviceSynchronize(), "uploads");

  cudaGraph_t g = nullptr;
  cudaGraphExec_t exec = nullptr;
  check_cuda(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "begin capture");
  cuda::replayssm_decode(dev, s, status);
  check_cuda(cudaStreamEndCapture(s, &g), "end capture");
  check_cuda(cudaGraphInstantiate(&exec, g, 0), "instantiate");

  int64_t flushes = 0, appends = 0;
  for (int64_t t = 0; t < c.steps; ++t) {
    if (t > 0) {
      fill_token(eager, t);
      fill_token(graph, t);
    }
    const Dims dims{c.B, c.H, c.HV, c.K, c.V, c.L, c.slots};
    for (const RowPlan& p : plan_rows(graph.args(), dims))
      if (p.accepted()) p.flush ? ++flushes : ++appends;
    eager_dev.step(eager.args());
    // Only this token's inputs and the cursors travel; state and rings stay on the device.
    const StepArgs h = graph.args();
    for (const DLTensor* x : {h.mixed_qkv, h.a, h.b, h.write_pos, h.force_flush}) graph_dev.device_of(*x).upload(*x);
    graph_dev.poison_out(h);
    check_cuda(cudaDeviceSynchronize(), "uploads");
    check_cuda(cudaGraphLaunch(exec, s), "graph launch");
    check_cuda(cudaStreamSynchronize(s), "graph replay");
    graph_dev.download_written(h);
    EXPECT_TRUE(same_bytes(eager.out, graph.out)) << "out differs at token " << t;
    EXPECT_TRUE(same_bytes(eager.initial_state, graph.initial_state)) << "initial_state differs at token " << t;
    EXPECT_TRUE(same_bytes(eager.d_cache, graph.d_cache)) << "d_cache differs at token " << t;
    EXPECT_TRUE(same_bytes(eager.k_cache, graph.k_cache)) << "k_cache differs at token " << t;
    EXPECT_TRUE(same_bytes(eager.g_cache, graph.g_cache)) << "g_cache differs at token " << t;
    EXPECT_EQ(eager_dev.row_status(), graph_dev.row_status()) << "status differs at token " << t;
    advance_cursors(eager);
    advance_cursors(graph);
  }
  EXPECT_GT(flushes, 0);
  EXPECT_GT(appends, 0);
  EXPECT_TRUE(graph_dev.guards_intact());
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(g);
}

TEST(KernelGraph, ReplayWithNewCursorsMatchesEager) {
  KDA_REQUIRE_GPU();
  replay_matches_eager(parse_case_config(
      "B=6 H=2 HV=4 K=64 V=64 L=4 slots=9 act=bf16 state=f32 ring=bf16 out=bf16 env=1 ff=1 flush=0.3 "
      "pad=0.25 rcur=1 steps=14 seed=7"));
  replay_matches_eager(parse_case_config(
      "B=5 H=1 HV=4 K=128 V=128 L=8 slots=5 act=bf16 state=bf16 ring=f32 out=f16 env=1 ff=1 flush=0.2 "
      "pad=0 rcur=1 steps=20 idx=i64 seed=8"));
}

}  // namespace
}  // namespace kda::testing
