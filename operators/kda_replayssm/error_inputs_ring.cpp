// R1-R10 and the harness's metadata extensions, then the whole list.
#include <algorithm>
#include <cstdint>

#include "contract/contract_error.hpp"
#include "contract/scalar_type.hpp"
#include "contract/tensor_view.hpp"
#include "operators/kda_replayssm/error_inputs.hpp"

namespace kda::engine {
namespace {

using Out = std::optional<Expected>;

TensorSpec& force_flush_of(MutationTarget& t) {
  if (TensorSpec* ff = t.spec.find("force_flush")) return *ff;
  TensorSpec ff;
  ff.dtype = to_dl(ScalarType::Int32);
  ff.device = t.spec.at("mixed_qkv").device;
  ff.reshape({t.B});
  return t.spec.set("force_flush", ff);
}

// X-VIEW-A: batch 0 everywhere mixed_qkv's batch is checked, or an `a` whose element count
// is not a multiple of B (B >= 2).
Expected break_view_of_a(MutationTarget& t, uint32_t v) {
  CallSpec& s = t.spec;
  if (v % 2 == 0 || t.B == 1) {
    t.B = 0;
    for (const char* name : {"mixed_qkv", "b", "out", "ssm_state_indices", "write_pos", "force_flush"})
      if (TensorSpec* x = s.find(name)) {
        auto sh = x->shape;
        sh[0] = 0;
        x->reshape(sh);
      }
  } else {
    const int64_t n = t.B * t.dims.HV * t.dims.K + 1;  // n % B == 1
    s.at("a").reshape(v % 4 == 1 ? std::vector<int64_t>{1, n} : std::vector<int64_t>{1, 1, n});
  }
  return expect(error_id::kViewA);
}

// Elements that overlap: a zero stride on a dim of size >= 2. An empty tensor (0 slots)
// cannot overlap, nor can a dim of size 1, so those get a negative slot stride instead.
void overlap(TensorSpec& t, std::size_t dim) {
  const bool empty = std::find(t.shape.begin(), t.shape.end(), 0) != t.shape.end();
  if (empty || t.shape[dim] < 2) t.explicit_strides()[0] = -1;
  else t.explicit_strides()[dim] = 0;
}

Expected break_strides(CallSpec& s, uint32_t v) {
  switch (v % 7) {
    case 0: overlap(s.at("initial_state"), 2); break;  // V dim; V13 reads only dim 3
    case 1: s.at("out").explicit_strides()[1] = -3; break;  // size-1 dim: still contiguous
    case 2: overlap(s.at("g_cache"), 3); break;
    case 3: s.at("ssm_state_indices").explicit_strides()[0] = -1; break;
    case 4: overlap(s.at("d_cache"), 3); break;
    case 5: overlap(s.at("k_cache"), 3); break;
    default: {  // V2 reads only dim 1
      TensorSpec& qkv = s.at("mixed_qkv");
      qkv.explicit_strides()[0] = -std::max<int64_t>(qkv.shape[1], 1);
      break;
    }
  }
  return expect(error_id::kStrides);
}

}  // namespace

std::vector<ErrorInput> replayssm_ring_and_extension_error_inputs() {
  std::vector<ErrorInput> in;
  in.push_back({"R1", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& wp = t.spec.at("write_pos");
    switch (v % 4) {
      case 0: wp.reshape({t.B, 1}); break;
      case 1: wp.reshape({}); break;
      case 2: wp.dtype = to_dl(ScalarType::Int64); break;
      default: wp.dtype = to_dl(ScalarType::Float32); break;
    }
    return expect("R1");
  }});
  in.push_back({"R2", [](MutationTarget& t, uint32_t v) -> Out {
    t.spec.at("write_pos").reshape({t.B + 1 + v % 3});
    return expect("R2", {{"(batch,)", tuple_repr({t.B})}});
  }});
  in.push_back({"R3", [](MutationTarget& t, uint32_t v) -> Out {
    TensorSpec& ff = force_flush_of(t);
    switch (v % 4) {
      case 0: ff.reshape({t.B, 1}); break;
      case 1: ff.dtype = to_dl(ScalarType::Int64); break;
      case 2: ff.reshape({t.B + 1}); break;
      default: ff.dtype = DLDataType{kDLUInt, 8, 1}; break;
    }
    return expect("R3");
  }});
  in.push_back({"R4-short", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    t.spec.at("d_cache").reshape(v % 2 ? std::vector<int64_t>{d.slots * d.HV * d.L * d.V}
                                       : std::vector<int64_t>{d.slots, d.HV});
    return expect("R5");
  }});
  in.push_back({"R4", [](MutationTarget& t, uint32_t) -> Out {
    t.spec.at("d_cache").reshape({t.dims.slots, t.dims.HV, 0, t.dims.V});
    return expect("R4");
  }});
  in.push_back({"R5", [](MutationTarget& t, uint32_t v) -> Out {  // keeps d_cache.size(2) == L >= 1
    const Dims& d = t.dims;
    TensorSpec& dc = t.spec.at("d_cache");
    switch (v % 4) {
      case 0: dc.reshape({d.slots, d.HV + 1, d.L, d.V}); break;
      case 1: dc.reshape({d.slots, d.HV, d.L, 2 * d.V}); break;
      case 2: dc.reshape({d.slots, d.HV, d.L}); break;
      default: dc.reshape({d.slots, d.HV, d.L, d.V, 1}); break;
    }
    return expect("R5");
  }});
  in.push_back({"R6", [](MutationTarget& t, uint32_t v) -> Out {
    // The seed's triggers: HV heads instead of H (GQA), another L, a ring left unsharded by
    // tensor parallelism over 4 ranks (4H heads), and more.
    const Dims& d = t.dims;
    TensorSpec& kc = t.spec.at("k_cache");
    switch (v % 5) {
      case 0: kc.reshape({d.slots, d.HV != d.H ? d.HV : d.H + 1, d.L, d.K}); break;
      case 1: kc.reshape({d.slots, d.H, d.L + 1, d.K}); break;
      case 2: kc.reshape({d.slots, d.H, d.L, 2 * d.K}); break;
      case 3: kc.reshape({d.slots, d.H, d.L}); break;
      default: kc.reshape({d.slots, 4 * d.H, d.L, d.K}); break;
    }
    return expect("R6");
  }});
  in.push_back({"R7", [](MutationTarget& t, uint32_t v) -> Out {
    const Dims& d = t.dims;
    TensorSpec& gc = t.spec.at("g_cache");
    switch (v % 4) {
      case 0: gc.reshape({d.slots, d.H != d.HV ? d.H : d.HV + 1, d.L, d.K}); break;
      case 1: gc.reshape({d.slots, d.HV, d.L + 1, d.K}); break;
      case 2: gc.reshape({d.slots, d.HV, d.L, 2 * d.K}); break;
      default: gc.reshape({d.slots, d.HV, d.L}); break;
    }
    return expect("R7");
  }});
  in.push_back({"R8", [](MutationTarget& t, uint32_t v) -> Out {
    static const DLDataType bad[] = {{kDLBfloat, 16, 1}, {kDLFloat, 16, 1}, {kDLFloat, 64, 1}, {kDLInt, 32, 1}};
    t.spec.at("g_cache").dtype = bad[v % 4];
    return expect("R8");
  }});
  in.push_back({"R9", [](MutationTarget& t, uint32_t v) -> Out {
    static constexpr const char* targets[] = {"d_cache", "k_cache", "g_cache", "write_pos"};
    t.spec.at(targets[v % 4]).device = other_device(t.spec.at("mixed_qkv").device);
    return expect("R9");
  }});
  in.push_back({"R10", [](MutationTarget& t, uint32_t) -> Out {
    force_flush_of(t).device = other_device(t.spec.at("mixed_qkv").device);
    return expect("R10");
  }});
  in.push_back({error_id::kViewA, [](MutationTarget& t, uint32_t v) -> Out { return break_view_of_a(t, v); }});
  in.push_back({error_id::kFloatDtype, [](MutationTarget& t, uint32_t v) -> Out {
    static constexpr const char* targets[] = {"mixed_qkv", "a", "b", "A_log", "dt_bias", "initial_state",
                                              "d_cache", "k_cache", "out"};
    static const DLDataType bad[] = {{kDLFloat, 64, 1}, {kDLInt, 32, 1}, {kDLUInt, 8, 1}, {kDLBfloat, 16, 2},
                                     {kDLFloat, 8, 1}};
    t.spec.at(targets[v % 9]).dtype = bad[(v / 9) % 5];
    return expect(error_id::kFloatDtype);
  }});
  in.push_back({error_id::kIndexDtype, [](MutationTarget& t, uint32_t v) -> Out {
    static const DLDataType bad[] = {{kDLInt, 16, 1}, {kDLUInt, 8, 1}, {kDLFloat, 32, 1}, {kDLInt, 64, 2},
                                     {kDLUInt, 32, 1}};
    t.spec.at("ssm_state_indices").dtype = bad[v % 5];
    return expect(error_id::kIndexDtype);
  }});
  in.push_back({error_id::kRingSlots, [](MutationTarget& t, uint32_t v) -> Out {
    static constexpr const char* targets[] = {"d_cache", "k_cache", "g_cache"};
    const int64_t S = t.dims.slots;
    t.spec.at(targets[v % 3]).shape[0] = (v / 3) % 2 == 0 || S == 0 ? S + 1 : S - 1;  // strides kept
    return expect(error_id::kRingSlots);
  }});
  in.push_back({error_id::kStrides, [](MutationTarget& t, uint32_t v) -> Out { return break_strides(t.spec, v); }});
  in.push_back({error_id::kExtents, [](MutationTarget& t, uint32_t v) -> Out {
    // The state and the rings with more slots than int64 bytes can address (2^63 - 1 or 2^62
    // slots of at least one 2-byte element); the slot counts stay equal (X-RING-SLOTS).
    const int64_t slots = v % 2 ? int64_t{1} << 62 : INT64_MAX;
    for (const char* name : {"initial_state", "d_cache", "k_cache", "g_cache"}) {
      TensorSpec& x = t.spec.at(name);
      auto sh = x.shape;
      sh[0] = slots;
      x.reshape(sh);
    }
    return expect(error_id::kExtents);
  }});
  in.push_back({"X-BACKEND", [](MutationTarget& t, uint32_t) -> Out {
    const bool on_cpu = t.spec.at("mixed_qkv").device.device_type == kDLCPU;
    t.spec.backend = on_cpu ? kda::Backend::Cuda : kda::Backend::Cpu;
    return expect(on_cpu ? error_id::kBackendCuda : error_id::kBackendCpu);
  }});
  return in;
}

const std::vector<ErrorInput>& replayssm_error_inputs() {
  static const std::vector<ErrorInput> list = [] {
    std::vector<ErrorInput> all = validator_error_inputs();
    for (ErrorInput& e : replayssm_ring_and_extension_error_inputs()) all.push_back(std::move(e));
    return all;
  }();
  return list;
}

}  // namespace kda::engine
