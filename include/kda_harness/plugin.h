/* The plugin ABI of the KDA decode-kernel conformance harness.
 *
 * A kernel author exposes their kernel to the harness as a shared library that exports ONE
 * C symbol, `kda_plugin_describe`, returning a static description: the operator it
 * implements, its envelope (what it accepts), its rounding profile (what it may round
 * differently from the default) and a step function over DLPack tensors. The harness then
 * runs every suite against it:
 *
 *     kda-harness check --backend plugin:/path/to/libmykernel.so
 *
 * The ABI is plain C (no C++ types cross it), versioned by KDA_PLUGIN_ABI_VERSION, and uses
 * only DLPack's DLTensor (dlpack/dlpack.h). Tensors are borrowed for the duration of one
 * call; strides are never NULL; the step writes its outputs in place.
 */
#ifndef KDA_HARNESS_PLUGIN_H
#define KDA_HARNESS_PLUGIN_H

#include <dlpack/dlpack.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version 2 added kda_plugin's invalid_rows, version 3 its ring_modes; the harness still loads
 * version 1 and 2 plugins (read as KDA_INVALID_ROWS_NONE and KDA_RING_LINEAR). */
#define KDA_PLUGIN_ABI_VERSION 3
#define KDA_PLUGIN_ABI_VERSION_MIN 1

/* Element types, as bits of a dtype set (an envelope lists the dtypes it accepts). */
#define KDA_DT_FLOAT32 (1u << 0)
#define KDA_DT_BFLOAT16 (1u << 1)
#define KDA_DT_FLOAT16 (1u << 2)
#define KDA_DT_INT32 (1u << 3)
#define KDA_DT_INT64 (1u << 4)
#define KDA_DT_ALL_FLOATS (KDA_DT_FLOAT32 | KDA_DT_BFLOAT16 | KDA_DT_FLOAT16)
#define KDA_DT_ALL_INDICES (KDA_DT_INT32 | KDA_DT_INT64)

/* Rounding profiles (semantics.md, "Kernel profiles"): the bound a result is judged by.
 * HELION: the default rounding points (float32 dots, keys stored at k_cache's dtype).
 * TRITON: dots in TF32 where out is float32; keys rounded through out's dtype first. */
#define KDA_PROFILE_HELION 0
#define KDA_PROFILE_TRITON 1

/* How a step treats a runtime-invalid row (a slot past the pool, a cursor outside the ring,
 * two rows on one slot: values only the device sees, contract.md's X-SLOT-INDEX, X-WRITE-POS
 * and X-DUP-SLOT). Negative slots are padding under every declaration (semantics.md: zero
 * out, nothing else read or written) and are always tested.
 * NONE: SGLang's contract: valid indices are the caller's duty; the harness never feeds such
 *   rows (unless asked to probe them) and claims nothing about them.
 * RAISE: the step refuses a call holding one (a non-zero return), nothing written. */
#define KDA_INVALID_ROWS_NONE 0
#define KDA_INVALID_ROWS_RAISE 1

/* The ring variants a step serves, as bits of kda_plugin's ring_modes (the spec's
 * circular-replay.md). LINEAR: records at [0, write_pos), a natural flush a full checkpoint
 * (every ReplaySSM operator). CIRCULAR: circular_replay with cache_base, records at
 * (cache_base + j) mod L, a natural flush a history checkpoint (gdn_replayssm,
 * kda_triton_replayssm). PREFIX_GATES: prefix_gate_cache set, the g ring holding each record's
 * window prefix (kda_triton_replayssm; gdn_replayssm accepts the flag and ignores it).
 * PREDECAYED_KEYS: predecayed_k_cache set, the k ring holding k exp(-prefix)
 * (kda_triton_replayssm, with circular rings and prefix gates). The harness samples calls of
 * the declared variants and checks that a call of another one the operator has is refused (a
 * non-zero return, nothing written). 0 reads as KDA_RING_LINEAR. A flag that is no variant of the
 * operator (gdn_replayssm ignores prefix_gate_cache) counts as served whatever is declared; so a
 * kda_triton_replayssm plugin declaring neither PREFIX_GATES nor PREDECAYED_KEYS is sent neither
 * flag as a call to compute, and must refuse calls that set them. */
#define KDA_RING_LINEAR (1u << 0)
#define KDA_RING_CIRCULAR (1u << 1)
#define KDA_RING_PREFIX_GATES (1u << 2)
#define KDA_RING_PREDECAYED_KEYS (1u << 3)
#define KDA_RING_ALL (KDA_RING_LINEAR | KDA_RING_CIRCULAR | KDA_RING_PREFIX_GATES | KDA_RING_PREDECAYED_KEYS)

/* What a plugin accepts. The harness samples inside it and checks that a call outside it is
 * refused (a non-zero return, nothing written). */
typedef struct kda_envelope {
  uint32_t act_dtypes;    /* mixed_qkv, a, b, A_log, dt_bias */
  uint32_t state_dtypes;  /* initial_state */
  uint32_t ring_dtypes;   /* d_cache and k_cache (g_cache is float32 by contract); ignored for an operator without rings */
  uint32_t out_dtypes;    /* out */
  uint32_t index_dtypes;  /* ssm_state_indices (write_pos and force_flush are int32) */
  int64_t k_min, k_max;   /* head dims K and V: powers of two within [min, max] */
  int64_t v_min, v_max;
  int64_t l_max;          /* the longest ring (d_cache.shape[2]) it takes; 0: no limit; ignored without rings */
  int32_t strided;        /* 1: any layout the contract allows; 0: compact tensors only */
  int32_t device_type;    /* DLDeviceType the tensors live on: kDLCPU (1) or kDLCUDA (2) */
} kda_envelope;

/* One call of the operator: its tensor arguments by name (the wrapper's own parameter
 * names, contract.md "Arguments"), in the operator's schema order, and its scalars.
 * An absent optional tensor (force_flush) is NULL; an absent optional scalar (lower_bound)
 * has scalar_present[i] == 0. Booleans (use_qk_l2norm_in_kernel) are 0.0 or 1.0. */
typedef struct kda_call {
  const char* op; /* the operator: "kda_replayssm", "kda_packed_decode" or "gdn_replayssm" */
  int32_t num_tensors;
  const char* const* tensor_names;
  DLTensor* const* tensors;
  int32_t num_scalars;
  const char* const* scalar_names;
  const double* scalar_values;
  const uint8_t* scalar_present;
  void* stream; /* the cudaStream_t to launch on, for kDLCUDA plugins; NULL otherwise */
} kda_call;

typedef struct kda_plugin {
  uint32_t abi_version;  /* KDA_PLUGIN_ABI_VERSION */
  const char* name;      /* a short name for reports: "cpu-example" */
  const char* op;        /* the operator it implements: "kda_replayssm", ... (as kda_call's op) */
  int32_t profile;       /* KDA_PROFILE_* */
  kda_envelope envelope;
  void* state;           /* passed back to step and last_error */
  /* Runs one step in place. Returns 0 when done; non-zero when the call is refused (outside
   * the envelope, or invalid), in which case nothing was written and last_error says why:
   * for a call the contract forbids, the contract's exact message (the text SGLang's wrapper
   * raises), so the harness can match it to its catalog. A CUDA plugin may return before the
   * work on `stream` completes. The harness may call step from several threads at once, on
   * different tensors; it reads last_error on the same thread, right after step returns. */
  int32_t (*step)(void* state, const kda_call* call);
  /* The reason for the last non-zero return (a NUL-terminated string owned by the plugin). */
  const char* (*last_error)(void* state);
  /* ABI version 2: KDA_INVALID_ROWS_*; not read from a version 1 plugin (NONE). */
  int32_t invalid_rows;
  /* ABI version 3: KDA_RING_* bits; not read from an older plugin (KDA_RING_LINEAR). */
  uint32_t ring_modes;
} kda_plugin;

/* The one symbol a plugin exports. */
#define KDA_PLUGIN_DESCRIBE_SYMBOL "kda_plugin_describe"
typedef const kda_plugin* (*kda_plugin_describe_fn)(void);

#if defined(_WIN32)
#define KDA_PLUGIN_EXPORT __declspec(dllexport)
#else
#define KDA_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* Helpers for plugin authors: look an argument up by name (NULL / 0 when absent). */
static inline DLTensor* kda_call_tensor(const kda_call* call, const char* name) {
  for (int32_t i = 0; i < call->num_tensors; ++i)
    if (strcmp(call->tensor_names[i], name) == 0) return call->tensors[i];
  return NULL;
}
static inline int kda_call_scalar(const kda_call* call, const char* name, double* value) {
  for (int32_t i = 0; i < call->num_scalars; ++i)
    if (strcmp(call->scalar_names[i], name) == 0) {
      if (!call->scalar_present[i]) return 0;
      *value = call->scalar_values[i];
      return 1;
    }
  return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* KDA_HARNESS_PLUGIN_H */
