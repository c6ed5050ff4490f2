// CaseConfig: everything that decides one test case (shapes, dtypes, layout flags, the
// cursor/flush pattern, the seed). Every tool draws or decodes these, and every failing case
// prints as the one-line string of to_string(), which parse_case_config() reads back
// (the CLI's `kda-harness case "<line>"`).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "contract/scalar_type.hpp"

namespace kda {

enum class ValueMode : unsigned char {
  WellConditioned,  // as SGLang's tests: small A_log and dt_bias, modest logits
  Adversarial       // large logits, gates near the softplus threshold 20, tiny/huge scales
};

struct CaseConfig {
  int64_t B = 3, H = 2, HV = 4, K = 128, V = 128, L = 4, slots = 5;
  ScalarType act_dtype = ScalarType::BFloat16;    // mixed_qkv, a, b, A_log, dt_bias
  ScalarType state_dtype = ScalarType::Float32;   // initial_state
  ScalarType ring_dtype = ScalarType::BFloat16;   // d_cache and k_cache (g_cache is float32)
  ScalarType out_dtype = ScalarType::BFloat16;    // out
  ScalarType index_dtype = ScalarType::Int32;     // ssm_state_indices
  // One scalar gate per value head (gdn_replayssm): a [B, HV], dt_bias [HV], g_cache
  // [slots, HV, L], each the per-channel value of channel 0 that the same config draws
  // without it, and the rings compact (that operator's wrapper requires it).
  bool gate_per_head = false;
  bool a_3d = false;          // a as [B, HV, K] instead of [B, HV*K]
  bool dt_bias_2d = false;    // dt_bias as [HV, K] instead of [HV*K]
  bool l2norm = true;         // use_qk_l2norm_in_kernel
  bool force_flush = true;    // force_flush tensor present
  // Strided layouts: initial_state and k_cache with a slot stride of (slot size + 257)
  // elements; d_cache and g_cache page-major ([L][slots][heads][X] storage, pages 257 apart);
  // mixed_qkv and b rows padded. The gaps hold NaN (a step must never touch them).
  bool envelope = false;
  std::optional<double> lower_bound;  // absent: softplus gate
  int64_t steps = 1;          // tokens in a rollout (T)
  double pad_fraction = 0.25; // probability that a row is padding (slot -1)
  // Rows 0 and B-1 padding whatever pad_fraction draws (a batch padded at both ends, as a
  // server's graph buckets pad it), and the last slot named by no live row: a kernel that
  // reads slot -1 as the last slot (an index that wraps) writes where nothing may be written.
  bool pad_ends = false;
  // Ring variants (circular-replay.md), for the operators that have them: a circular ring
  // (circular_replay with cache_base, each live row's base drawn in [0, L-1]; natural flushes
  // are history checkpoints), prefix_gate_cache set (a per-K g ring then holds each record's
  // window prefix; gdn_replayssm accepts the flag and ignores it), and predecayed_k_cache set
  // (with both: the k ring holds k exp(-prefix); only kda_triton_replayssm takes it).
  bool circular = false;
  bool prefix_gates = false;
  bool predecayed_keys = false;
  // flash-linear-attention's recurrent decode (fla_recurrent_kda): T tokens per sequence in
  // each call of the rollout (`steps` calls). tokens == 0: not chosen (the other operators'
  // cases; that operator's fit_case chooses them from the seed); only a chosen set is printed.
  int64_t tokens = 0;
  bool indices_2d = false;      // ssm_state_indices [B, T], the slot of the state after each token
  bool accepted = false;        // num_accepted_tokens given (speculative verify), beside 2-D indices
  bool v_first = false;         // the pool [N, HV, V, K] (state_v_first), else [N, HV, K, V]
  bool gate_in_kernel = false;  // g the raw gate input, the kernel applies A_log, dt_bias and the activation
  bool beta_sigmoid = false;    // beta the raw logits, the kernel applies the sigmoid
  bool zero_pool = false;       // every slot of the pool starts at zeros (as a fresh server's pool)
  double flush_prob = 0.2;    // per row and step, probability of a forced flush
  bool random_cursors = true; // rows start at different cursors (divergent write_pos)
  ValueMode values = ValueMode::WellConditioned;
  uint64_t seed = 1;

  bool operator==(const CaseConfig&) const = default;
};

// "B=3 H=2 HV=4 K=128 V=128 L=4 slots=5 act=bf16 state=f32 ring=bf16 out=bf16 idx=i32 a3d=0
//  dt2d=0 l2=1 ff=1 env=0 lb=none steps=1 pad=0.25 flush=0.2 rcur=1 values=well seed=1", with
// " gate=head" appended for a config with gate_per_head, " padends=1" for one with pad_ends,
// " circ=1", " pgc=1" and " pdk=1" for the ring variants, " T=2 idx2d=1 nat=1 vfirst=0 gik=1 bsig=1
// zpool=0" for a config whose tokens are chosen.
std::string to_string(const CaseConfig& c);
// "f32", "bf16", "f16", "i32", "i64": a dtype as the config line names it (case names use it too).
std::string_view short_name(ScalarType t);
// A case line: the config and the operator the line names (op=NAME, as the operator table
// and --op name it; empty where the line names none: the default operator's lines leave it out,
// and a reader then judges the config as the operator it is told, else the default).
struct CaseLine {
  std::string op;
  CaseConfig config;
};
// "op=NAME " before to_string(c), for an operator other than the default (the engine's
// config_line decides which; the text form here knows no operator names).
std::string to_string(const CaseConfig& c, std::string_view op);
// Reads to_string()'s form, op= included; keys may be omitted (defaults) and come in any
// order, each at most once. Throws std::invalid_argument naming the bad or repeated key.
CaseLine parse_case_line(std::string_view line);
// parse_case_line of a line that names no operator (a golden manifest's, a fuzz corpus's);
// throws std::invalid_argument for one that does.
CaseConfig parse_case_config(std::string_view line);
// `c` with the keys of `keys` (a config fragment, "T=1 vfirst=1") set to their values, as
// parse_case_config reads them. Throws std::invalid_argument for no key=value list, op=, a key
// given twice or a bad value.
CaseConfig with_keys(const CaseConfig& c, std::string_view keys);

// The first field of a config that makes it no valid call, as "HV=4 is not a multiple of
// H=3 (grouped heads)"; empty for a valid config. The rules: powers of two, GQA ratio,
// slots >= B (so every row can name its own slot), float dtypes, int32/int64 indices,
// steps >= 1, fractions in [0, 1], a decaying bounded gate, T in 0..64.
std::string invalid_config_field(const CaseConfig& c);
// invalid_config_field(c) is empty: the config describes a VALID call.
bool is_valid_config(const CaseConfig& c);
// Why a line's config is no valid call, as every entry point that reads a line refuses it:
// "the config does not describe a valid call: FIELD (in LINE)"; empty for a valid config.
std::string invalid_line_message(const CaseLine& line);

// Reference work of a rollout, roughly: rows x value heads x state size x (mean ring depth + 2)
// x tokens. The case generators and decoders fit their draws under a budget of it.
double rollout_work(const CaseConfig& c);

}  // namespace kda
