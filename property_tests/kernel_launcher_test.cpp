// The launcher's contract side: for invalid arguments it throws exactly what
// validate(args, Backend::Cuda) throws (id and message) and launches nothing. The error
// cases run without a GPU: validation happens before any CUDA call.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "contract/validate.hpp"
#include "engine/backends/device_mirror.hpp"
#include "kernels/replayssm_decode.hpp"
#include "kernels/replayssm_params.hpp"
#include "operators/replayssm_family/case_tensors.hpp"
#include "property_tests/kernel_gpu_env.hpp"

namespace kda::testing {
using ::kda::engine::DeviceMirror;
using ::kda::engine::check_cuda;
namespace {

// Copies of a call's DLTensors (own shape/stride arrays) that a test may relabel or reshape
// without touching the data they point to.
struct EditableCall {
  std::vector<DLTensor> t;
  std::vector<std::vector<int64_t>> shapes, strides;
  StepArgs args;

  explicit EditableCall(const StepArgs& a) : args(a) {
    const DLTensor* src[] = {a.mixed_qkv, a.a, a.b, a.A_log, a.dt_bias, a.initial_state, a.d_cache,
                             a.k_cache, a.g_cache, a.out, a.ssm_state_indices, a.write_pos, a.force_flush};
    for (const DLTensor* s : src) {
      t.push_back(*s);
      shapes.emplace_back(s->shape, s->shape + s->ndim);
      strides.emplace_back(s->strides, s->strides + s->ndim);
    }
    for (std::size_t i = 0; i < t.size(); ++i) {
      t[i].shape = shapes[i].data();
      t[i].strides = strides[i].data();
    }
    args.mixed_qkv = &t[0], args.a = &t[1], args.b = &t[2], args.A_log = &t[3], args.dt_bias = &t[4];
    args.initial_state = &t[5], args.d_cache = &t[6], args.k_cache = &t[7], args.g_cache = &t[8];
    args.out = &t[9], args.ssm_state_indices = &t[10], args.write_pos = &t[11], args.force_flush = &t[12];
  }
  void relabel(DLDeviceType type) {
    for (DLTensor& x : t) x.device = {type, 0};
  }
};

struct Mutation {
  const char* name;
  std::function<void(EditableCall&)> apply;
};

const std::vector<Mutation>& mutations() {
  static const std::vector<Mutation> m = {
      {"write_pos int64", [](EditableCall& c) { c.t[11].dtype = {kDLInt, 64, 1}; }},
      {"g_cache bfloat16", [](EditableCall& c) { c.t[8].dtype = {kDLBfloat, 16, 1}; }},
      {"k_cache with HV heads", [](EditableCall& c) { c.shapes[7][1] = c.shapes[5][1]; }},
      {"state 3-D", [](EditableCall& c) { c.t[5].ndim = 3; }},
      {"K not a power of two", [](EditableCall& c) { c.shapes[5][3] = 48; }},
      {"out wrong shape", [](EditableCall& c) { c.shapes[9][2] += 1; }},
      {"force_flush float", [](EditableCall& c) { c.t[12].dtype = {kDLFloat, 32, 1}; }},
      {"mixed_qkv float64", [](EditableCall& c) { c.t[0].dtype = {kDLFloat, 64, 1}; }},
      {"ring slots short", [](EditableCall& c) { c.shapes[6][0] -= 1; }},
      {"tensor on another device", [](EditableCall& c) { c.t[7].device.device_id = 1; }},
  };
  return m;
}

// Runs f and returns "id|message" of the ContractError it throws ("none" if it throws none).
std::string contract_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ContractError& e) {
    return e.id() + "|" + e.what();
  }
  return "none";
}

const char* kCase = "B=3 H=2 HV=4 K=16 V=16 L=4 slots=5 ff=1";

TEST(KernelLauncher, ContractErrorsAreValidatesOwn) {
  CaseTensors host = materialize_replayssm_case(parse_case_config(kCase));
  for (const Mutation& m : mutations()) {
    EditableCall call(host.args());
    call.relabel(kDLCUDA);
    m.apply(call);
    const std::string expected = contract_error_of([&] { validate(call.args, Backend::Cuda); });
    ASSERT_NE(expected, "none") << m.name << " should be invalid";
    EXPECT_EQ(contract_error_of([&] { cuda::replayssm_decode(call.args, nullptr); }), expected) << m.name;
  }
}

TEST(KernelLauncher, CpuTensorsAreRefused) {
  CaseTensors host = materialize_replayssm_case(parse_case_config(kCase));
  const std::string got = contract_error_of([&] { cuda::replayssm_decode(host.args(), nullptr); });
  EXPECT_EQ(got.substr(0, got.find('|')), error_id::kBackendCuda) << got;
}

// The V split's choice is host arithmetic, checked here without a GPU at its bounds (V a
// multiple of 32 of at least 64, at most 384 CTAs of 32 rows); KernelVsReference's
// HeadsSplitOverCtasOnSmallGrids runs both sides on the GPU.
TEST(KernelLauncher, ShortRingSplitsHeadsOnlyOnSmallGrids) {
  const auto splits = [](int64_t B, int64_t HV, int64_t V) {
    cuda::detail::ReplayParams p;
    p.B = B, p.HV = HV, p.V = V;
    return cuda::detail::short_ring_splits_heads(p);
  };
  EXPECT_TRUE(splits(1, 32, 128));   // the plain decode at B = 1 with 32 heads: 128 CTAs
  EXPECT_TRUE(splits(3, 32, 128));   // 384 CTAs: the bound
  EXPECT_FALSE(splits(4, 32, 128));  // 512
  EXPECT_TRUE(splits(2, 4, 256));    // 64 CTAs of a 256-row head split in 8
  EXPECT_FALSE(splits(1, 1, 32));    // one CTA of 32 rows: nothing to split
  EXPECT_FALSE(splits(1, 1, 80));    // V not a multiple of 32
}

TEST(KernelLauncher, MalformedStatusTensorIsRefusedBeforeLaunch) {
  CaseTensors host = materialize_replayssm_case(parse_case_config(kCase));
  EditableCall call(host.args());
  call.relabel(kDLCUDA);
  HostTensor bad = HostTensor::metadata({kDLInt, 64, 1}, {3}, {1}, {kDLCUDA, 0});
  EXPECT_THROW(cuda::replayssm_decode(call.args, nullptr, &bad.dl()), std::invalid_argument);
  HostTensor short_status = HostTensor::metadata({kDLInt, 32, 1}, {2}, {1}, {kDLCUDA, 0});
  EXPECT_THROW(cuda::replayssm_decode(call.args, nullptr, &short_status.dl()), std::invalid_argument);
}

// On a GPU: a refused call leaves every byte of every tensor as it was.
TEST(KernelLauncher, RefusedCallTouchesNothing) {
  KDA_REQUIRE_GPU();
  CaseTensors host = materialize_replayssm_case(parse_case_config(kCase));
  DeviceMirror mirror;
  const StepArgs dev = mirror.upload(host.args());
  for (const Mutation& m : mutations()) {
    EditableCall call(dev);
    m.apply(call);
    mirror.poison_out(host.args());
    EXPECT_THROW(cuda::replayssm_decode(call.args, mirror.stream()), ContractError) << m.name;
    check_cuda(cudaStreamSynchronize(mirror.stream()), "sync");
    CaseTensors after = materialize_replayssm_case(parse_case_config(kCase));
    for (auto [from, to] : {std::pair{&host.initial_state, &after.initial_state}, {&host.d_cache, &after.d_cache},
                            {&host.k_cache, &after.k_cache}, {&host.g_cache, &after.g_cache}, {&host.out, &after.out}})
      mirror.device_of(from->dl()).download(*to);
    for (auto [x, y] : {std::pair{&host.initial_state, &after.initial_state}, {&host.d_cache, &after.d_cache},
                        {&host.k_cache, &after.k_cache}, {&host.g_cache, &after.g_cache}})
      EXPECT_EQ(0, std::memcmp(x->storage().data(), y->storage().data(), x->storage().size())) << m.name;
    for (std::byte b : after.out.storage()) ASSERT_EQ(b, std::byte{0xFF}) << m.name << ": out was written";
  }
  EXPECT_TRUE(mirror.guards_intact());
}

}  // namespace
}  // namespace kda::testing
