// Mutations for P0, W1, W2 and V1-V22. Each breaks its own check; none breaks an earlier
// one (the comments say why where it is not obvious).
#include <fmt/format.h>

#include "property_tests/contract_mutation_steps.hpp"

namespace kda::test {
namespace {

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// Non-contiguous: every stride doubled. The last dim of every tensor mutated this way has
// size >= 2 (K, V, HV*K, or a mutation's size >= 2), so the doubled last stride breaks it.
void double_strides(TensorSpec& t) {
  t.reshape(t.shape);
  for (auto& s : t.strides) s *= 2;
}

}  // namespace

std::optional<Expected> mutate_packed(MutationTarget& t, const Mutation& m) {
  CallSpec& s = t.spec;
  const ValidCallConfig& c = t.config;
  const int64_t B = t.B, H = c.H, HV = c.HV(), K = c.K, V = c.V;
  const uint32_t v = m.variant;
  switch (m.check) {
    case Check::P0:
      s.mixed_qkv.reshape({});
      return Expected{"V1", "`mixed_qkv` must be a 2D tensor (got ndim=0)."};
    case Check::W1: {
      TensorSpec& a = s.a;
      if (v % 3 == 0) a.reshape({product(a.shape)});
      else if (v % 3 == 1) { auto sh = a.shape; sh.resize(4, 1); a.reshape(sh); }
      else double_strides(a);
      return fixed_message("W1");
    }
    case Check::W2: {
      TensorSpec& dt = s.dt_bias;
      if (v % 3 == 0) dt.reshape({});
      else if (v % 3 == 1) { auto sh = dt.shape; sh.insert(sh.begin(), 3 - sh.size(), 1); dt.reshape(sh); }
      else double_strides(dt);
      return fixed_message("W2");
    }
    case Check::V1: {
      const int64_t D = s.mixed_qkv.shape.back();
      // A 1-D mixed_qkv makes batch = D; only W3 (deferred to X-VIEW-A) depends on batch
      // before V1.
      s.mixed_qkv.reshape(v % 2 ? std::vector<int64_t>{B, 1, D} : std::vector<int64_t>{D});
      return Expected{"V1", fmt::format("`mixed_qkv` must be a 2D tensor (got ndim={}).", s.mixed_qkv.shape.size())};
    }
    case Check::V2: {
      auto& st = s.mixed_qkv.explicit_strides();
      st = {2 * s.mixed_qkv.shape[1] + 1, 2 + static_cast<int64_t>(v % 2)};
      return fixed_message("V2");
    }
    case Check::V3: {
      const auto sh = s.b.shape;
      s.b.reshape(v % 2 ? std::vector<int64_t>{sh[0], sh[1], 1} : std::vector<int64_t>{sh[0]});
      return Expected{"V3", fmt::format("`a` and `b` must be 2D tensors (got a.ndim=2, b.ndim={}).", s.b.shape.size())};
    }
    case Check::V4:
      s.b.reshape(s.b.shape);
      s.b.strides = {2 * s.b.shape[1], 2};  // raw last stride, read even when b.shape[1] == 1
      return fixed_message("V4");
    case Check::V5: {
      const int64_t n = s.A_log.shape[0];
      s.A_log.reshape(v % 3 == 0 ? std::vector<int64_t>{} : v % 3 == 1 ? std::vector<int64_t>{n, 1}
                                                                       : std::vector<int64_t>{1, n});
      return fixed_message("V5");
    }
    case Check::V6:
      s.A_log.explicit_strides() = {2 + static_cast<int64_t>(v % 2)};
      return fixed_message("V6");
    case Check::V7:
      s.ssm_state_indices.reshape(v % 2 ? std::vector<int64_t>{} : std::vector<int64_t>{B, 1});
      return Expected{"V7", fmt::format("`ssm_state_indices` must be 1D for packed decode (got ndim={}).",
                                        s.ssm_state_indices.shape.size())};
    case Check::V8:
      if (product(s.out.shape) == 0) return std::nullopt;  // an empty out is always contiguous
      double_strides(s.out);
      return fixed_message("V8");
    case Check::V9: {
      TensorSpec* targets[] = {&s.a, &s.b, &s.A_log, &s.dt_bias, &s.initial_state, &s.out, &s.ssm_state_indices};
      targets[v % 7]->device = other_device(s.mixed_qkv.device);
      return fixed_message("V9");
    }
    case Check::V10: {
      const int64_t rows = B + 1 + v % 3;
      s.b.reshape({rows, s.b.shape[1]});
      return Expected{"V10", fmt::format("Mismatched batch sizes: mixed_qkv.shape[0]={}, a.shape[0]={}, "
                                         "b.shape[0]={}.", B, B, rows)};
    }
    case Check::V11:
      s.ssm_state_indices.reshape({B + 1 + v % 3});
      return Expected{"V11", fmt::format("`ssm_state_indices` must have shape [B] (got {}; expected ({},)).",
                                         tuple_text(s.ssm_state_indices.shape), B)};
    case Check::V12: {
      const auto sh = s.initial_state.shape;
      s.initial_state.reshape(v % 2 ? std::vector<int64_t>{1, sh[0], sh[1], sh[2], sh[3]}
                                    : std::vector<int64_t>{sh[0], sh[1], sh[2] * sh[3]});
      return Expected{"V12", fmt::format("`initial_state` must be a 4D tensor (got ndim={}).",
                                         s.initial_state.shape.size())};
    }
    case Check::V13:
      double_strides(s.initial_state);
      return fixed_message("V13");
    case Check::V14: {
      int64_t k2 = K, v2 = V;
      switch (v % 4) {
        case 0: v2 = 3; break;
        case 1: k2 = 48; break;
        case 2: v2 = 0; break;
        default: k2 = 24; v2 = 96; break;
      }
      s.initial_state.reshape({s.initial_state.shape[0], HV, v2, k2});
      return Expected{"V14", fmt::format("Helion KDA decode requires power-of-two key and value head dimensions "
                                         "(got K={}, V={}).", k2, v2)};
    }
    case Check::V15: {
      if (B == 0) return std::nullopt;  // no view of `a`: V15 is skipped (X-VIEW-A ruling)
      std::vector<int64_t> sh = v % 3 == 0   ? std::vector<int64_t>{B, HV * K + 1 + v % 5}
                                : v % 3 == 1 ? std::vector<int64_t>{B, HV + 1, K}
                                             : std::vector<int64_t>{B, HV, 2 * K};
      s.a.reshape(sh);
      return Expected{"V15", fmt::format("`a` must have shape [B, HV*K] with HV={}, K={} (got a.shape=({}, {})).",
                                         HV, K, B, product(sh) / B)};
    }
    case Check::V16:
      s.b.reshape({B, HV + 1 + v % 3});
      return Expected{"V16", fmt::format("`b` must have shape [B, HV] with HV={} (got b.shape={}).", HV,
                                         tuple_text(s.b.shape))};
    case Check::V17:
      s.A_log.reshape({HV + 1 + v % 3});
      return Expected{"V17", fmt::format("`A_log` must have {} elements (got {}).", HV, s.A_log.shape[0])};
    case Check::V18: {
      s.dt_bias.reshape(v % 3 == 0   ? std::vector<int64_t>{HV * K + 1 + v % 5}
                        : v % 3 == 1 ? std::vector<int64_t>{HV, 2 * K}
                                     : std::vector<int64_t>{HV + 1, K});
      return Expected{"V18", fmt::format("`dt_bias` must have {} elements (got {}).", HV * K,
                                         product(s.dt_bias.shape))};
    }
    case Check::V19: {
      std::vector<int64_t> sh = v % 4 == 0   ? std::vector<int64_t>{B, HV, V}
                                : v % 4 == 1 ? std::vector<int64_t>{B, 1, HV, 2 * V}
                                : v % 4 == 2 ? std::vector<int64_t>{B + 1, 1, HV, V}
                                             : std::vector<int64_t>{B, 2, HV, V};
      s.out.reshape(sh);
      return Expected{"V19", fmt::format("`out` must have shape {} (got out.shape={}).",
                                         tuple_text({B, 1, HV, V}), tuple_text(sh))};
    }
    case Check::V20: {
      const int64_t d = v % 4 == 0 ? HV * V : v % 4 == 1 ? HV * V + 2 * H * K + 1 : v % 4 == 2 ? HV * V - 1 : HV * V + 1;
      s.mixed_qkv.reshape({B, d});
      return Expected{"V20", fmt::format("Invalid packed `mixed_qkv` last dim={} for HV={}, V={}.", d, HV, V)};
    }
    case Check::V21: {
      const int64_t q = H * K + 1 + static_cast<int64_t>(v % (K - 1));
      s.mixed_qkv.reshape({B, HV * V + 2 * q});
      return Expected{"V21", fmt::format("Invalid packed Q size {}: must be divisible by K={}. KDA packed decode "
                                         "requires num_q_heads == num_k_heads and head_q_dim == head_k_dim.", q, K)};
    }
    case Check::V22: {
      const int64_t h = HV + 1 + v % 3;  // HV % h == HV != 0
      s.mixed_qkv.reshape({B, HV * V + 2 * h * K});
      return Expected{"V22", fmt::format("Invalid head config inferred from mixed_qkv: H={}, HV={}.", h, HV)};
    }
    default:
      return std::nullopt;
  }
}

}  // namespace kda::test
