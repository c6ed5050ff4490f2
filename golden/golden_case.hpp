// One golden case in memory, and its safetensors form (golden/safetensors.hpp).
//
// A case is a call of the ReplaySSM step (or a rollout of `steps` calls) with every input
// tensor, the scalars, and either the expected results (kind Step) or the exact error the
// call must raise (kind Error). Tensor names in the file:
//   step-invariant inputs   A_log, dt_bias, ssm_state_indices, out (the buffer before each
//                           step), initial_state, d_cache, k_cache, g_cache (before step 0)
//   per-step inputs         mixed_qkv, a, b, write_pos, force_flush (when present)
//   per-step expected       expected.out; and, for steps before the last, the checkpoint of
//                           each slot the step flushed: expected.initial_state.slot<S>
//   final expected          expected.initial_state, expected.d_cache, expected.k_cache,
//                           expected.g_cache (the tensors as the last step leaves them)
// With steps > 1 every per-step name carries the prefix "step<T>." (step0.mixed_qkv, ...).
// __metadata__ (string -> string): kda.format, kda.kind ("step" | "error"), kda.name,
// kda.purpose, kda.config (the CaseConfig line it was generated from), kda.steps, kda.scale,
// kda.use_qk_l2norm_in_kernel ("true" | "false"), kda.lower_bound (a number or "none"),
// kda.circular_replay, kda.prefix_gate_cache and kda.predecayed_k_cache ("true", written only when set; a circular
// case stores cache_base per step, as write_pos),
// kda.call (the call's metadata JSON, as `kda-harness validate` reads it), kda.generator,
// kda.expected_id and kda.expected_message (errors), kda.op (the operator, when not
// kda_replayssm: a plain packed decode case stores its call's tensors as the ReplaySSM call
// at L = 1 that its case config materializes; kda.call is its own call), and
// kda.strides.<tensor> for every
// tensor whose original layout is not compact: the file stores it compact, and decoding
// re-creates the original strides (the bytes between elements are 0xFF, NaN in every float
// dtype, as the case generator leaves them).
//
// A user's own dump needs only the input names above (steps 1) and kda.scale; kind, name,
// steps, l2 norm and lower bound default to step, the file name, 1, false and none.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cases/case_config.hpp"
#include "contract/host_tensor.hpp"
#include "golden/golden_manifest.hpp"
#include "golden/safetensors.hpp"

namespace kda::golden {

enum class CaseKind { Step, Error };

inline constexpr const char* kFormatTag = "kda-golden/1";

struct GoldenCase {
  std::string name, purpose;
  std::string op = default_op();  // kda.op, written only for another operator than the default
  CaseKind kind = CaseKind::Step;
  std::optional<CaseConfig> config;  // absent in a user's dump
  int64_t steps = 1;
  double scale = 1.0;
  bool l2norm = false;
  std::optional<double> lower_bound;
  bool circular_replay = false, prefix_gate_cache = false, predecayed_k_cache = false;  // the ring variants' flags
  // The recurrent decode family's flags (fla_recurrent_*): the gate and the beta sigmoid in the
  // kernel, beta doubled, a V-first pool.
  bool use_gate_in_kernel = false, use_beta_sigmoid_in_kernel = false, allow_neg_eigval = false, state_v_first = false;
  std::map<std::string, HostTensor> tensors;  // by file name, with their original strides
  std::string expected_id, expected_message;  // kind Error
  std::string call_json;                      // kda.call
  std::string generator;                      // kda.generator

  bool has(const std::string& tensor) const { return tensors.count(tensor) != 0; }
  const HostTensor& at(const std::string& tensor) const;
  // The tensor, which must have this dtype and shape (an expected tensor is indexed like the
  // one it is compared with); SafetensorsError otherwise.
  const HostTensor& at(const std::string& tensor, ScalarType type, const std::vector<int64_t>& shape) const;
  // True when the file carries expected results (golden cases do; a user's dump may not).
  bool has_expected() const;
};

// Name of a per-step tensor: "mixed_qkv" when steps == 1, else "step<t>.mixed_qkv".
std::string step_name(const GoldenCase& c, int64_t t, const std::string& base);
// "expected.initial_state.slot<slot>" for step t (prefixed like step_name).
std::string checkpoint_name(const GoldenCase& c, int64_t t, int64_t slot);

SafetensorsFile encode(const GoldenCase& c);
// Throws SafetensorsError on a missing or malformed key. fallback_name names the case when the
// file carries no kda.name. Takes the file's tensors over (a compact one keeps its buffer), so
// that a file passed by std::move is never held twice.
GoldenCase decode(SafetensorsFile file, const std::string& fallback_name);

// Compact copy of a tensor (its logical elements in row-major order) and back: from_stored
// allocates the given strides (empty = compact), fills the storage with 0xFF and places the
// elements.
StoredTensor to_stored(const HostTensor& t);
HostTensor from_stored(const StoredTensor& s, const std::vector<int64_t>& strides);

// Element offsets (in elements) of every logical element of a tensor, in row-major order.
std::vector<int64_t> element_offsets(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides);

// Text of a double that reads back to the same value (shortest round-trip form).
std::string format_double(double x);

}  // namespace kda::golden
