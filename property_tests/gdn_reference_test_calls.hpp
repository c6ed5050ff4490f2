// Random gdn_replayssm calls for the reference's tests (reference_kda_test.cpp,
// reference_rollout_test.cpp): a config drawn by RapidCheck, its tensors in gdn_replayssm's
// shapes from the harness's counter-based generator (cases/rng.hpp), its tokens, the caller's
// cursor protocol, and the same call in kda_replayssm's shapes with the gate broadcast.
#pragma once
#include <rapidcheck.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "contract/step_tensors.hpp"

namespace kda::gdn::test {

struct GdnConfig {
  int64_t B = 1, H = 1, HV = 1, K = 16, V = 16, L = 4, slots = 1, steps = 1;
  ScalarType act = ScalarType::Float32, state = ScalarType::Float32, ring = ScalarType::Float32,
             out = ScalarType::Float32;
  bool l2norm = true, force_flush = true;
  std::optional<double> lower_bound;
  double pad = 0.2, flush = 0.1;  // probability of a padding row; of a forced flush per row and token
  uint64_t seed = 1;
};
std::string to_string(const GdnConfig& c);
void showValue(const GdnConfig& c, std::ostream& os);  // how RapidCheck prints a failing config

// Every draw at RapidCheck's nominal size, so the whole range is drawn from the first case on
// (as property_tests/rc_chooser.hpp does); a failure still shrinks towards small values.
template <class T>
T draw(rc::Gen<T> g) {
  return *rc::gen::resize(100, std::move(g));
}

// powers_of_two: K and V as kda_replayssm's contract takes them (V14); else also 24, 40, 48.
// Steps 1..max_steps.
rc::Gen<GdnConfig> gen_config(bool powers_of_two, int64_t max_steps);

// The call's tensors in gdn_replayssm's shapes, token 0's inputs filled. Every element a step
// must not read holds NaN: ring records at and past each row's cursor, the slots no row
// names, out. Non-padding rows name distinct slots; each starts at its own cursor with its
// records before it filled.
struct GdnCall : StepTensors {
  GdnConfig c;
  Dims dims;
};
GdnCall make_call(const GdnConfig& c);
// The per-token inputs (mixed_qkv, a, b, force_flush) of token t.
void fill_token(GdnCall& t, int64_t token);
// Whether the row flushes at this token (cursor == L-1 or forced).
bool flushes(const GdnCall& t, int64_t row);
// The caller's protocol: 0 where the row flushed, else write_pos + 1.
void advance_cursors(GdnCall& t);

// The same call in kda_replayssm's shapes, every per-key gate equal to the scalar gate:
// a_kda[n, hv*K + c] = a[n, hv], dt_kda[hv*K + c] = dt_bias[hv], g_kda[s, hv, j, c] = g[s, hv, j].
// Its key ring is float32 holding the same values, so the keys it stores are the token's
// float32 keys, which a test can round as GDN's step must.
StepTensors kda_call(const GdnCall& g);

// An index tensor's values.
std::vector<int64_t> ints(const HostTensor& t);

}  // namespace kda::gdn::test
