/* The harness as a C library, for callers that cannot link C++ (the Python package loads it
 * with ctypes). Nothing is thrown across this boundary: every function returns a status code
 * and, on an error, fills a kda_error with the catalog id and the exact catalog message.
 *
 * Tensors go in as the plugin ABI's kda_call (include/kda_harness/plugin.h): arguments by
 * their contract.md names, the operator in its `op` (one of kda_operators(): "kda_replayssm",
 * "kda_packed_decode", "gdn_replayssm"). The harness borrows them for the duration of the call.
 */
#ifndef KDA_CAPI_H
#define KDA_CAPI_H

#include <stddef.h>
#include <stdint.h>

#include "kda_harness/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KDA_CAPI_VERSION 9

#define KDA_CAPI_EXPORT __attribute__((visibility("default")))

/* Status codes. */
#define KDA_OK 0
#define KDA_CONTRACT_ERROR 1   /* the call breaks the contract: id and message from the catalog */
#define KDA_BAD_ARGUMENT 2     /* the request itself is malformed (unknown op, a tensor missing or not the op's, bad config line) */
#define KDA_INTERNAL_ERROR 3   /* anything else the harness raised */
#define KDA_BUFFER_TOO_SMALL 4 /* a report did not fit: *needed holds its size */

typedef struct kda_error {
  char id[32];        /* catalog id ("V14", "X-STRIDES"), or "" outside the catalog */
  char message[4096]; /* the exact message, NUL-terminated (truncated only past 4095 bytes) */
} kda_error;

/* What validation infers (contract.md: B, H, HV, K, V, L; slots = initial_state.shape[0]; L is 0
 * for an operator without rings). */
typedef struct kda_dims {
  int64_t B, H, HV, K, V, L, slots;
} kda_dims;

/* Which device the call is meant for: decides the backend extension check. */
#define KDA_DEVICE_ANY 0
#define KDA_DEVICE_CPU 1
#define KDA_DEVICE_CUDA 2

KDA_CAPI_EXPORT int32_t kda_capi_version(void);

/* The operators, comma-separated, the default first: "kda_replayssm,kda_packed_decode,gdn_replayssm". */
KDA_CAPI_EXPORT const char* kda_operators(void);
/* The tensor arguments of operator `op`, comma-separated in its signature's order, an optional
 * one marked with a trailing '?' ("...,write_pos,force_flush?"); NULL for an unknown op. */
KDA_CAPI_EXPORT const char* kda_operator_tensors(const char* op);
/* The scalar arguments of operator `op`, comma-separated in its signature's order, one that
 * may be absent (lower_bound's None) marked with a trailing '?' ("scale,lower_bound?,..."); NULL
 * for an unknown op. A call passes each as a double (a flag 0 or 1). */
KDA_CAPI_EXPORT const char* kda_operator_scalars(const char* op);
/* The error catalog ids (docs/errors.md) that operator `op`'s contract and runtime checks raise,
 * comma-separated in catalog order ("W1,W2,V1,..."); NULL for an unknown op. */
KDA_CAPI_EXPORT const char* kda_operator_errors(const char* op);

/* validate(): every check of call->op's contract in its order, metadata only. With
 * check_values set (host index tensors only) the runtime-value extensions too. The call must
 * hold every tensor the operator takes (force_flush may be absent) and no other. */
KDA_CAPI_EXPORT int32_t kda_validate(const kda_call* call, int32_t device, int32_t check_values, kda_dims* dims, kda_error* err);

/* One reference step of call->op in place on host tensors; rounding 0: the kernel's rounding
 * points, 1: none (double arithmetic). Validates first and writes nothing on an error. */
KDA_CAPI_EXPORT int32_t kda_reference_step(const kda_call* call, int32_t rounding, kda_dims* dims, kda_error* err);

/* Case `index` of the sample space of `seed`, drawn with about `work_budget` reference work
 * (<= 0: the default) inside `envelope` (NULL: none) as the backend suites draw (K and V
 * uniform over the powers of two it allows, one case in five a production shape; see
 * engine/driver/backend_cases.hpp) and made one of operator `op`'s
 * (NULL: the default): its one-line config (op=OP first for an operator other than the
 * default), the line `kda-harness case "<line>"` replays. */
KDA_CAPI_EXPORT int32_t kda_cases(const char* op, uint64_t seed, int64_t index, double work_budget, const kda_envelope* envelope,
                  char* line, size_t capacity, kda_error* err);

/* A case's tensors, materialized from its config line made one of operator `op`'s (NULL: the
 * operator the line names, op=OP, else the default; a line that names another operator than
 * `op` is KDA_INVALID_ARGUMENT naming both), owned by the handle. The line is read as every
 * entry point reads one (engine/driver/case_line.hpp: checked, fitted once, held to the
 * default memory and work budgets). */
typedef struct kda_case kda_case;
KDA_CAPI_EXPORT int32_t kda_case_materialize(const char* op, const char* line, kda_case** out, kda_error* err);
/* The config line the tensors are of (the operator's fit of the given line). */
KDA_CAPI_EXPORT const char* kda_case_config(const kda_case* c);
/* The case's call of the operator (step 0; only the tensors it takes): pointers into the
 * handle, valid until kda_case_free. */
KDA_CAPI_EXPORT const kda_call* kda_case_call(const kda_case* c);
KDA_CAPI_EXPORT void kda_case_free(kda_case* c);

/* Which suites to run against a plugin and on which cases. */
typedef struct kda_check_options {
  const char* suites;  /* comma-separated, of kda_check_suites() (the CLI's names); NULL or "": the default ones
                          (kda_defaults()'s "suites": those `kda-harness check` runs, kernel-contract only when named) */
  uint64_t seed;
  int64_t first;       /* the cases first .. first + count - 1 of each suite */
  int64_t count;
  double work_budget;  /* reference work per rollout case (<= 0: the default) */
  int32_t profile;     /* KDA_PROFILE_*, or -1: the plugin's own */
  const char* config;  /* a config line (a case's replay): that case alone, against the reference as the kernel suite
                          runs it, or against the float64 truth where `suites` names kernel-truth alone; NULL: none */
  /* Where the suites draw their cases, inside the plugin's envelope; it claims nothing: the
   * envelope suite still tests the declared envelope. NULL: the whole envelope. */
  const kda_envelope* restriction;
  /* Version 6: with a plugin that declares KDA_INVALID_ROWS_NONE, feed invalid rows anyway (one
   * kernel case in five) and report, never fail, what it did (`check --probe-invalid-indices`). */
  int32_t probe_invalid_rows;
  /* Version 6: "NAME[:tp=N]" (`check --model`): the kernel suites draw that model's per-GPU shapes; NULL: none. */
  const char* model;
  /* Version 9: config keys every drawn case takes ("T=1 vfirst=1 gik=1"; `check --pin`), for a
   * plugin that serves one mode of its operator: each case drawn as without it, then its keys
   * set; NULL or "": none. A pin that is no list of config keys is KDA_BAD_ARGUMENT. */
  const char* pin;
} kda_check_options;

/* Runs the suites against the plugin, as an implementation of the operator it names (its
 * `op`): that operator's cases, reference and error inputs. The report is JSON, NUL-terminated:
 *   {"plugin": NAME, "profile": P, "invalid_rows": WHAT,
 *    "cases": [{"suite", "index", "pass", "replay", "detail", "skipped"}...]}
 * (skipped: a case with nothing to test, such as the envelope suite's on a plugin whose envelope
 * is the whole contract; it is no pass and no failure),
 * WHAT says which claims about runtime-invalid rows the plugin made and which were tested, and replay is the case's config line, followed by " | error input ID" (kernel-contract),
 * " | outside the envelope: WHY" (envelope, and one kernel case in ten) or " | at token T,
 * row R's ..." (one kernel case in five where the plugin declares KDA_INVALID_ROWS_RAISE, or
 * " | probe: at token T, ..." with probe_invalid_rows); the suites are the harness's one table's
 * (engine/driver/suites.hpp, `kda-harness check --list`). A name that is no suite of
 * kda_check_suites() is KDA_BAD_ARGUMENT (a former name, rollout or truth, says the new one). 
 * Returns KDA_OK when the suites ran (whatever they found), KDA_BUFFER_TOO_SMALL with *needed
 * set when the report does not fit, else an error. */
KDA_CAPI_EXPORT int32_t kda_check_plugin(const kda_plugin* plugin, const kda_check_options* options, char* report, size_t capacity,
                         size_t* needed, kda_error* err);

/* The replay line kda_check_plugin gives case options->first of the one suite options->suites
 * names, without running it (what a front end reports for a case whose process died). KDA_OK,
 * or KDA_BUFFER_TOO_SMALL with *needed set, or an error. */
KDA_CAPI_EXPORT int32_t kda_check_case_line(const kda_plugin* plugin, const kda_check_options* options, char* line,
                                            size_t capacity, size_t* needed, kda_error* err);

/* Version 8: the plugin's step timed per shape class after a check (`kda-harness check --time`'s
 * classes: decode, short and long ring, B 1 and 64, fitted into its envelope), the median of many
 * runs (CUDA events for a CUDA plugin, a steady clock else), beside a plain copy's bandwidth,
 * with the benchmark's bytes model; decides nothing. The report is JSON, NUL-terminated:
 *   {"backend", "clock", "copy_gbps", "classes": [{"class", "config", "cursor", "median_us",
 *    "p10_us", "p90_us", "runs" (or "problem": why it was not timed), "bytes", "gbps", "copy_fraction"}]}
 * KDA_OK, KDA_BUFFER_TOO_SMALL with *needed set, or an error. */
KDA_CAPI_EXPORT int32_t kda_time_plugin(const kda_plugin* plugin, char* report, size_t capacity, size_t* needed,
                                        kda_error* err);

/* Version 8: a failing case of the kernel suites shrunk, as `kda-harness check` shrinks it: options->config
 * names the case (a replay of kda_check_plugin's report), options->suites "kernel" (against the
 * reference) or "kernel-truth" (against the float64 truth). The case is run again; where it fails, it
 * is rerun smaller (fewer tokens, rows and heads, smaller K, V and ring; engine/driver/shrink.hpp) and the
 * smallest config line that still fails of the same cause is written to `line`, no larger than the
 * case in any dimension; "" where the case passes, is no rollout (its replay names a call after
 * " | ") or nothing smaller fails. KDA_OK, KDA_BUFFER_TOO_SMALL with *needed set, or an error. */
KDA_CAPI_EXPORT int32_t kda_shrink_case(const kda_plugin* plugin, const kda_check_options* options, char* line,
                                        size_t capacity, size_t* needed, kda_error* err);

/* The suites kda_check_plugin runs, comma-separated: the backend suites of the harness's table
 * whose cases are drawn (kernel, kernel-truth, envelope, kernel-contract). */
KDA_CAPI_EXPORT const char* kda_check_suites(void);

/* The defaults of every entry point (engine/driver/defaults.hpp: the command line's, this library's and
 * its front ends'), as one JSON object, NUL-terminated, owned by the library:
 *   {"op": the default operator (a plugin is judged as its own), "seed": 1, "profile": "helion" (of
 *    a callable that declares none), "suites": kda_check_options' default, "cli_suites": `kda-harness
 *    check`'s backend suites, "cases": cases per suite of a front end, "suite_cases": {OP: {SUITE: N}}: the cases a front end runs of each
 *    suite where none are named ("cases"; kernel-contract at least one per documented error input of OP), "work_budget": this library's,
 *    "cli_work_budget": `check --gpu-work-budget`'s}
 * Version 7; suite_cases version 8. */
KDA_CAPI_EXPORT const char* kda_defaults(void);

/* KDA_OK when every comma-separated name is one of kda_check_suites() (NULL or "": the default ones), else
 * KDA_BAD_ARGUMENT with err saying why (an unknown name, a former name and the new one, a
 * suite that judges the harness itself or needs the golden set's files). Runs nothing. */
KDA_CAPI_EXPORT int32_t kda_check_suites_valid(const char* suites, kda_error* err);

/* The checks the harness's plugin loader makes of a description (ABI version, operator,
 * profile, step and last_error, device, an envelope that admits at least one call), for a
 * front end that loads a plugin library itself (Python's load_plugin): KDA_OK, or
 * KDA_BAD_ARGUMENT with err saying what is wrong. `what` names the plugin in the message. */
KDA_CAPI_EXPORT int32_t kda_plugin_check(const kda_plugin* plugin, const char* what, kda_error* err);

#ifdef __cplusplus
}
#endif

#endif /* KDA_CAPI_H */
