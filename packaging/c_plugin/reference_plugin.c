/* A plugin written in plain C and built with nothing but pkg-config's flags
 * (`pkg-config --cflags --libs kda_harness_capi`): its step is the harness's own CPU
 * reference through the C library (kda_reference_step), and it refuses what lies outside its
 * envelope (K or V above 256) as a kernel must, so `kda-harness check --backend plugin:...`
 * passes it. packaging/consumer_check.cmake builds and judges it against an installed tree. */
#include <stdio.h>

#include "kda_harness/kda_capi.h"

#define MAX_DIM 256

/* The harness may step from several threads; it reads last_error on the stepping thread. */
static _Thread_local char error_text[sizeof(((kda_error*)0)->message) + 128];

static int32_t step(void* state, const kda_call* call) {
  (void)state;
  kda_error err;
  kda_dims dims;
  if (kda_validate(call, KDA_DEVICE_CPU, 1, &dims, &err) != KDA_OK) {
    snprintf(error_text, sizeof error_text, "%s", err.message);
    return 1;
  }
  if (dims.K > MAX_DIM || dims.V > MAX_DIM) {
    snprintf(error_text, sizeof error_text, "outside this plugin's envelope: K = %lld, V = %lld (at most %d)",
             (long long)dims.K, (long long)dims.V, MAX_DIM);
    return 1;
  }
  if (kda_reference_step(call, 0, &dims, &err) != KDA_OK) {
    snprintf(error_text, sizeof error_text, "%s", err.message);
    return 1;
  }
  return 0;
}

static const char* last_error(void* state) {
  (void)state;
  return error_text;
}

static const kda_plugin plugin = {
    KDA_PLUGIN_ABI_VERSION, "c-reference", "kda_replayssm", KDA_PROFILE_HELION,
    {KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_FLOATS, KDA_DT_ALL_INDICES,
     /* K */ 1, MAX_DIM, /* V */ 1, MAX_DIM, /* L max */ 0, /* strided */ 1, kDLCPU},
    NULL, step, last_error,
    /* the harness's reference step refuses runtime-invalid rows */ KDA_INVALID_ROWS_RAISE,
    /* linear rings (kda_replayssm has no other) */ KDA_RING_LINEAR};

KDA_PLUGIN_EXPORT const kda_plugin* kda_plugin_describe(void) { return &plugin; }
