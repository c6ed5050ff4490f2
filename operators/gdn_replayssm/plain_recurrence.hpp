// The plain GDN recurrence in float64: the ground truth of gdn_replayssm (gdn-replayssm.md,
// "What it computes"), written straight from the spec, sharing nothing with the step but the
// tensor readers. One token, one row, one value head hv (query/key head h = hv / (HV/H)):
//   g = lower_bound * sigmoid(A x)  or  -A softplus(x),  x = a[row, hv] + dt_bias[hv], A = exp(A_log[hv])
//   S = exp(g) S;   d = beta (v - S k);   S = S + d k^T;   o = S (q * scale).
#pragma once
#include <cstdint>

#include "contract/step_args.hpp"
#include "reference/layer_inputs.hpp"
#include "reference/plain_recurrence.hpp"

namespace kda::gdn {

// One token's inputs of (row, hv), read from the call's tensors: q (L2-normalized if asked,
// then times scale), k (normalized if asked), v, the scalar gate g and beta (the float32
// sigmoid of b, rounded through b's dtype unless beta_through_b is false; the reason even a
// float64 model takes it so: reference/layer_inputs.hpp, LayerParams::beta_dtype).
struct GdnHead {
  reference::Vector<double> q_scaled, k, v;
  double g = 0, beta = 0;
};
GdnHead gdn_head(const StepArgs& args, const Dims& dims, int64_t row, int64_t hv, bool beta_through_b = true);
// The same head as KDA's per-channel token, its gate repeated over the K channels (what the KDA
// models, reference::ErrorBudget included, take: GDN is KDA with the gate broadcast).
reference::HeadToken<double> as_head_token(const GdnHead& head);

// The state of (slot, hv) before the current token as the step rebuilds it from the checkpoint
// and the first `cursor` ring records, in float64 with no rounding:
//   S = S0 exp(total) + sum_{j<cursor} exp(total - prefix_j) d_j k_j^T.
reference::Matrix<double> gdn_rebuilt_state(const StepArgs& args, const Dims& dims, int64_t slot, int64_t hv,
                                            int64_t cursor);

// One token of the plain recurrence for the call's batch: updates state.at(slot, hv) of every
// row's slot (ssm_state_indices; rows must name distinct slots) and returns the outputs
// [B, HV*V] (out[row, hv*V + i]). Padding rows (slot < 0) give zeros and touch no state.
reference::Matrix<double> plain_gdn_recurrence(reference::PlainState<double>& state, const StepArgs& args,
                                               const Dims& dims, bool beta_through_b = true);

}  // namespace kda::gdn
