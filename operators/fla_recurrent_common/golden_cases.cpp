// The recurrent decode family's golden cases: small shapes (K = 16, V = 8 or 16), each a config
// with every key of the family set (T, [B] or [B, T] indices, num_accepted_tokens, the pool's
// layout, the gate and beta sigmoid in the kernel or not, a zero pool), so the file holds the
// call the reference computed: the common decode (T = 1), speculative verifies (T = 2..4 with
// accepted counts), rollouts whose indices stay and whose accepted counts change, padding rows,
// grouped heads, dtypes; and an error case (dt_bias of the other gate width).
#include "operators/fla_recurrent_common/golden_cases.hpp"

#include <fmt/format.h>

#include "operators/fla_recurrent_common/case_tensors.hpp"

namespace kda::engine {
namespace {

using golden::GoldenSpec;
constexpr ScalarType kF32 = ScalarType::Float32, kBF16 = ScalarType::BFloat16, kF16 = ScalarType::Float16;

// B=3 rows, H=1, HV=2, K=16, V=8, one call of one token, K-first pool, gate and beta as given.
CaseConfig small(uint64_t seed) {
  CaseConfig c;
  c.B = 3; c.H = 1; c.HV = 2; c.K = 16; c.V = 8; c.slots = 4; c.pad_fraction = 0; c.steps = 1;
  c.tokens = 1;
  c.seed = seed;
  return c;
}

}  // namespace

std::vector<GoldenSpec> fla_recurrent_golden_cases(FlaGate gate) {
  const bool per_key = gate == FlaGate::PerKey;
  const std::string what = per_key ? "fla recurrent KDA: " : "fla recurrent Gated DeltaNet: ";
  std::vector<GoldenSpec> out;
  const auto add = [&](const std::string& name, const std::string& purpose, const CaseConfig& c) -> GoldenSpec& {
    GoldenSpec s;
    s.name = name;
    s.purpose = what + purpose;
    s.config = fit_fla_case(c, gate);
    out.push_back(s);
    return out.back();
  };
  {
    CaseConfig c = small(4001);
    add("t1_indices_1d", "the common decode: T = 1, [B] indices, K-first pool, gate and beta precomputed", c);
  }
  {
    CaseConfig c = small(4002);
    c.indices_2d = c.v_first = c.gate_in_kernel = c.beta_sigmoid = true;
    add("t1_indices_2d_in_kernel", "T = 1 with [B, 1] indices, V-first pool, gate and beta sigmoid in the kernel", c);
  }
  for (int64_t T : {2, 3, 4}) {
    CaseConfig c = small(4010 + T);
    c.tokens = T; c.indices_2d = c.accepted = true; c.v_first = T != 3; c.gate_in_kernel = T == 4; c.beta_sigmoid = T >= 3;
    c.slots = 3 * T + 1;
    add(fmt::format("verify_t{}", T),
        fmt::format("a speculative verify: T = {}, [B, T] indices, num_accepted_tokens (the state after token n - 1 "
                    "resumed), {} pool",
                    T, c.v_first ? "V-first" : "K-first"),
        c);
  }
  {
    CaseConfig c = small(4021);
    c.tokens = 2; c.indices_2d = true; c.steps = 3;
    c.slots = 7;
    add("rollout_t2_no_accepted", "three calls of T = 2 without num_accepted_tokens (each resumes from idx[b, 0])", c);
  }
  {
    CaseConfig c = small(4022);
    c.tokens = 3; c.indices_2d = c.accepted = c.gate_in_kernel = c.beta_sigmoid = true; c.steps = 3;
    c.slots = 10;
    add("rollout_t3_accepted", "three verify calls of T = 3, each with its own accepted counts", c);
  }
  {
    CaseConfig c = small(4031);
    c.B = 5; c.slots = 6; c.pad_fraction = 0.4; c.pad_ends = true; c.index_dtype = ScalarType::Int64;
    add("padding_rows", "padding rows (first index -1: out zero, no state read or written) at both ends, int64 indices", c);
  }
  {
    CaseConfig c = small(4032);
    c.tokens = 2; c.indices_2d = c.accepted = true; c.B = 4; c.slots = 9; c.pad_ends = true;
    add("padding_rows_verify", "padding rows ([-1, -1]) in a T = 2 verify", c);
  }
  {
    // Indices [1, -1, 2] (its seed's draw): the pool's last slot is a live row's, after the
    // padding row, so a padding row computed on the last slot shows in that row's state (an
    // unnamed slot holds NaN, which such a computation leaves as it was).
    CaseConfig c = small(4102);
    c.slots = 3; c.pad_fraction = 0.34; c.steps = 2;
    add("padding_before_last_slot", "a padding row before the live row of the pool's last slot (indices [1, -1, 2])", c);
  }
  {
    CaseConfig c = small(4041);
    c.zero_pool = true; c.steps = 2;
    add("zero_pool", "a pool of zeros (a fresh server's): the state written shows which slots a call updated", c);
  }
  {
    CaseConfig c = small(4051);
    c.H = 2; c.HV = 8; c.V = 16; c.gate_in_kernel = true; c.steps = 2;
    add("gqa_ratio_4", "grouped heads HV/H = 4 (H=2, HV=8), the gate in the kernel, two calls", c);
  }
  {
    CaseConfig c = small(4061);
    c.l2norm = true; c.tokens = 2; c.indices_2d = true; c.slots = 7;
    add("l2norm", "use_qk_l2norm_in_kernel, T = 2", c);
  }
  const ScalarType combos[][3] = {{kBF16, kF32, kBF16}, {kF16, kBF16, kF32}, {kBF16, kBF16, kF16}, {kF32, kF16, kF32}};
  int i = 0;
  for (const auto& [act, state, o] : combos) {
    CaseConfig c = small(4071 + i);
    c.act_dtype = act; c.state_dtype = state; c.out_dtype = o; c.v_first = i % 2 == 1; c.beta_sigmoid = i >= 2;
    add(fmt::format("dtype_{}_{}_{}", short_name(act), short_name(state), short_name(o)),
        fmt::format("dtypes act={} state={} out={}", name_of(act), name_of(state), name_of(o)), c);
    ++i;
  }
  GoldenSpec& dt = add("error_dt_bias_width",
                       per_key ? "dt_bias per head [HV] where KDA reads one per key channel (X-FLA-SHAPE)"
                               : "dt_bias per key channel [HV * K] where Gated DeltaNet reads one per head (X-FLA-SHAPE)",
                       small(4091));
  dt.error_input = "X-FLA-SHAPE";
  dt.error_variant = 0;
  return out;
}

}  // namespace kda::engine
