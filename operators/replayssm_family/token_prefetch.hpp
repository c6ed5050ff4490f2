// The next token's inputs made on a helper thread while the driver plays the current token:
// in a fuzz target, which plays one case at a time, the case generator is the largest part
// of the host's work per step. The bytes are fill_token's (cases/case_tensors.hpp): a
// token's inputs are a pure function of the case's config, the token and its dt_bias, so
// the thread that makes them does not matter. The helper is a thread kept per thread that
// plays cases; it runs only where the case has a core to spare (engine/oracles/spare_cores.hpp);
// otherwise take() makes the inputs itself.
#pragma once
#include <cstdint>
#include <exception>

#include "operators/replayssm_family/case_tensors.hpp"

namespace kda::engine {

class TokenPrefetch {
 public:
  // For a case as materialize_replayssm_case() made it; no thread starts before start().
  explicit TokenPrefetch(const CaseTensors& materialized);
  ~TokenPrefetch();  // waits for a fill in progress
  TokenPrefetch(const TokenPrefetch&) = delete;
  TokenPrefetch& operator=(const TokenPrefetch&) = delete;

  // Starts making `token`'s inputs on the helper (nothing where no core is spare).
  void start(int64_t token);
  // `token`'s inputs into t, as fill_token(t, token) writes them.
  void take(CaseTensors& t, int64_t token);

 private:
  CaseTensors next_;  // the per-token inputs and what fill_token reads; no state or rings
  bool spare_ = false;
  int64_t asked_ = -1;  // the token being made on this thread's helper (-1: none)
  std::exception_ptr error_;  // what making it threw, set on the helper before it is done
};

}  // namespace kda::engine
