// Mutations for R1-R10 and the harness's metadata extensions.
#include <fmt/format.h>

#include <algorithm>

#include "property_tests/contract_mutation_steps.hpp"

namespace kda::test {
namespace {

TensorSpec& force_flush_of(MutationTarget& t) {
  if (!t.spec.force_flush) {
    TensorSpec ff;
    ff.dtype = to_dl(ScalarType::Int32);
    ff.device = t.spec.mixed_qkv.device;
    ff.reshape({t.B});
    t.spec.force_flush = ff;
  }
  return *t.spec.force_flush;
}

// X-VIEW-A: batch 0 everywhere mixed_qkv's batch is checked, or an `a` whose element count
// is not a multiple of B (B >= 2).
Expected break_view_of_a(MutationTarget& t, uint32_t v) {
  CallSpec& s = t.spec;
  const ValidCallConfig& c = t.config;
  if (v % 2 == 0 || t.B == 1) {
    t.B = 0;
    s.mixed_qkv.reshape({0, s.mixed_qkv.shape[1]});
    s.b.reshape({0, s.b.shape[1]});
    s.out.reshape({0, s.out.shape[1], s.out.shape[2], s.out.shape[3]});
    s.ssm_state_indices.reshape({0});
    s.write_pos.reshape({0});
    if (s.force_flush) s.force_flush->reshape({0});
  } else {
    const int64_t n = t.B * c.HV() * c.K + 1;  // n % B == 1
    s.a.reshape(v % 4 == 1 ? std::vector<int64_t>{1, n} : std::vector<int64_t>{1, 1, n});
  }
  return fixed_message("X-VIEW-A");
}

// A zero stride on a dim of size >= 16 (elements overlap); an empty tensor (0 slots) cannot
// overlap, so it gets a negative slot stride instead.
void overlap(TensorSpec& t, std::size_t dim) {
  const bool empty = std::find(t.shape.begin(), t.shape.end(), 0) != t.shape.end();
  t.explicit_strides()[empty ? 0 : dim] = empty ? -1 : 0;
}

Expected break_strides(CallSpec& s, uint32_t v) {
  switch (v % 7) {
    case 0: overlap(s.initial_state, 2); break;  // V dim; V13 reads only dim 3
    case 1: s.out.explicit_strides()[1] = -3; break;  // size-1 dim: still contiguous
    case 2: overlap(s.g_cache, 3); break;
    case 3: s.ssm_state_indices.explicit_strides()[0] = -1; break;
    case 4: overlap(s.d_cache, 3); break;
    case 5: overlap(s.k_cache, 3); break;
    default: s.mixed_qkv.explicit_strides()[0] = -s.mixed_qkv.shape[1]; break;  // V2 reads only dim 1
  }
  return fixed_message("X-STRIDES");
}

}  // namespace

std::optional<Expected> mutate_replayssm_or_extension(MutationTarget& t, const Mutation& m) {
  CallSpec& s = t.spec;
  const ValidCallConfig& c = t.config;
  const int64_t B = t.B, H = c.H, HV = c.HV(), K = c.K, V = c.V, L = c.L, S = c.slots;
  const uint32_t v = m.variant;
  switch (m.check) {
    case Check::R1:
      switch (v % 4) {
        case 0: s.write_pos.reshape({B, 1}); break;
        case 1: s.write_pos.reshape({}); break;
        case 2: s.write_pos.dtype = to_dl(ScalarType::Int64); break;
        default: s.write_pos.dtype = to_dl(ScalarType::Float32); break;
      }
      return fixed_message("R1");
    case Check::R2:
      s.write_pos.reshape({B + 1 + v % 3});
      return Expected{"R2", fmt::format("`write_pos` must have shape ({},).", B)};
    case Check::R3: {
      TensorSpec& ff = force_flush_of(t);
      switch (v % 4) {
        case 0: ff.reshape({B, 1}); break;
        case 1: ff.dtype = to_dl(ScalarType::Int64); break;
        case 2: ff.reshape({B + 1}); break;
        default: ff.dtype = DLDataType{kDLUInt, 8, 1}; break;
      }
      return fixed_message("R3");
    }
    case Check::R4Short:
      s.d_cache.reshape(v % 2 ? std::vector<int64_t>{S * HV * L * V} : std::vector<int64_t>{S, HV});
      return Expected{"R5", fixed_message("R5").message};
    case Check::R4:
      s.d_cache.reshape({S, HV, 0, V});
      return fixed_message("R4");
    case Check::R5:  // keeps d_cache.size(2) == L >= 1
      switch (v % 4) {
        case 0: s.d_cache.reshape({S, HV + 1, L, V}); break;
        case 1: s.d_cache.reshape({S, HV, L, 2 * V}); break;
        case 2: s.d_cache.reshape({S, HV, L}); break;
        default: s.d_cache.reshape({S, HV, L, V, 1}); break;
      }
      return fixed_message("R5");
    case Check::R6:  // the seed's triggers: HV heads instead of H, another L, and more
      switch (v % 4) {
        case 0: s.k_cache.reshape({S, HV != H ? HV : H + 1, L, K}); break;
        case 1: s.k_cache.reshape({S, H, L + 1, K}); break;
        case 2: s.k_cache.reshape({S, H, L, 2 * K}); break;
        default: s.k_cache.reshape({S, H, L}); break;
      }
      return fixed_message("R6");
    case Check::R7:
      switch (v % 4) {
        case 0: s.g_cache.reshape({S, H != HV ? H : HV + 1, L, K}); break;
        case 1: s.g_cache.reshape({S, HV, L + 1, K}); break;
        case 2: s.g_cache.reshape({S, HV, L, 2 * K}); break;
        default: s.g_cache.reshape({S, HV, L}); break;
      }
      return fixed_message("R7");
    case Check::R8: {
      static const DLDataType bad[] = {{kDLBfloat, 16, 1}, {kDLFloat, 16, 1}, {kDLFloat, 64, 1}, {kDLInt, 32, 1}};
      s.g_cache.dtype = bad[v % 4];
      return fixed_message("R8");
    }
    case Check::R9: {
      TensorSpec* targets[] = {&s.d_cache, &s.k_cache, &s.g_cache, &s.write_pos};
      targets[v % 4]->device = other_device(s.mixed_qkv.device);
      return fixed_message("R9");
    }
    case Check::R10:
      force_flush_of(t).device = other_device(s.mixed_qkv.device);
      return fixed_message("R10");
    case Check::XViewA:
      return break_view_of_a(t, v);
    case Check::XDtypeFloat: {
      TensorSpec* targets[] = {&s.mixed_qkv, &s.a, &s.b, &s.A_log, &s.dt_bias, &s.initial_state,
                               &s.d_cache, &s.k_cache, &s.out};
      static const DLDataType bad[] = {{kDLFloat, 64, 1}, {kDLInt, 32, 1}, {kDLUInt, 8, 1}, {kDLBfloat, 16, 2},
                                       {kDLFloat, 8, 1}};
      targets[v % 9]->dtype = bad[(v / 9) % 5];
      return fixed_message("X-DTYPE-FLOAT");
    }
    case Check::XDtypeIndex: {
      static const DLDataType bad[] = {{kDLInt, 16, 1}, {kDLUInt, 8, 1}, {kDLFloat, 32, 1}, {kDLInt, 64, 2},
                                       {kDLUInt, 32, 1}};
      s.ssm_state_indices.dtype = bad[v % 5];
      return fixed_message("X-DTYPE-INDEX");
    }
    case Check::XRingSlots: {
      TensorSpec* targets[] = {&s.d_cache, &s.k_cache, &s.g_cache};
      targets[v % 3]->shape[0] = (v / 3) % 2 == 0 || S == 0 ? S + 1 : S - 1;  // strides kept
      return fixed_message("X-RING-SLOTS");
    }
    case Check::XStrides:
      return break_strides(s, v);
    case Check::XBackend: {
      const bool on_cpu = s.mixed_qkv.device.device_type == kDLCPU;
      s.backend = on_cpu ? Backend::Cuda : Backend::Cpu;
      return fixed_message(on_cpu ? "X-BACKEND-CUDA" : "X-BACKEND-CPU");
    }
    default:
      return std::nullopt;
  }
}

}  // namespace kda::test
