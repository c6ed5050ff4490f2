"""flash-linear-attention's recurrent decode kernels (fla-core, `pip install fla-core`) as step
functions of the harness's operators (docs/fla-recurrent-decode.md):

- kda_step: fla.ops.kda.fused_recurrent.fused_recurrent_kda_fwd, the continuous-batching decode
  (a state pool updated in place at ssm_state_indices, speculative decoding through
  num_accepted_tokens), as operator fla_recurrent_kda.
- gdn_step: fla.ops.gated_delta_rule.fused_recurrent_gated_delta_rule (Gated DeltaNet, one gate
  per value head), as operator fla_recurrent_gdn. fla 0.6.0's Gated DeltaNet entry point has no
  continuous-batching form: ssm_state_indices, num_accepted_tokens, inplace_final_state, out and
  lower_bound land in its **kwargs and are ignored (it then reads initial_state rows 0..B-1 and
  returns a new final state). The step does what its user must: the live rows' start states
  gathered from the pool, one call per token (T = 1, output_final_state=True, the last call's
  final state as the next initial_state), each token's final state stored at idx[b, t] and its
  output in out. So fla's kernel is judged on the recurrence (gate, beta, L2 norm, scale, GQA,
  the state's layout); the pool indexing judged is this adapter's.

    import kda_harness
    from kda_harness.peers import fla
    print(kda_harness.check(fla.kda_step, device="cuda"))
    print(kda_harness.check(fla.gdn_step, device="cuda"))
"""
from . import installed_version
from ..envelope import FLOATS, INDICES, Envelope

# What fla's Triton kernels take: every float dtype (each load is converted to float32, each
# store to the tensor's dtype), any K and V (masked tiles), int32 or int64 indices; the pool at
# any slot stride (fused_recurrent_kda_fwd reads initial_state.stride(0); gdn_step indexes the
# pool itself and fla's Gated DeltaNet wrapper makes its inputs contiguous), every other tensor
# compact (the operators' contract); runtime values unchecked (the caller's duty).
ENVELOPE = Envelope(act_dtypes=FLOATS, state_dtypes=FLOATS, out_dtypes=FLOATS, index_dtypes=INDICES,
                    strided=True, invalid_rows="none")


def version():
    """fla-core's version as installed ("" when it is not)."""
    return installed_version("fla-core")


def kda_step(q, k, v, g, beta, initial_state, ssm_state_indices, out, A_log=None, dt_bias=None,
             num_accepted_tokens=None, scale=None, use_qk_l2norm_in_kernel=False, use_gate_in_kernel=False,
             use_beta_sigmoid_in_kernel=False, allow_neg_eigval=False, lower_bound=None, state_v_first=False):
    from fla.ops.kda.fused_recurrent import fused_recurrent_kda_fwd

    fused_recurrent_kda_fwd(q=q, k=k, v=v, g=g, beta=beta, A_log=A_log, dt_bias=dt_bias, initial_state=initial_state,
                            scale=scale, inplace_final_state=True, state_v_first=state_v_first,
                            ssm_state_indices=ssm_state_indices, num_accepted_tokens=num_accepted_tokens,
                            use_qk_l2norm_in_kernel=use_qk_l2norm_in_kernel, use_gate_in_kernel=use_gate_in_kernel,
                            use_beta_sigmoid_in_kernel=use_beta_sigmoid_in_kernel, allow_neg_eigval=allow_neg_eigval,
                            lower_bound=lower_bound, out=out)


kda_step.kda_op = "fla_recurrent_kda"
kda_step.kda_envelope = ENVELOPE


def gdn_step(q, k, v, g, beta, initial_state, ssm_state_indices, out, A_log=None, dt_bias=None,
             num_accepted_tokens=None, scale=None, use_qk_l2norm_in_kernel=False, use_gate_in_kernel=False,
             use_beta_sigmoid_in_kernel=False, allow_neg_eigval=False, state_v_first=False):
    import torch
    from fla.ops.gated_delta_rule import fused_recurrent_gated_delta_rule

    idx = ssm_state_indices.long()
    if idx.ndim == 1:
        idx = idx[:, None]
    live = torch.nonzero(idx[:, 0] >= 0).flatten()  # padding rows (first index -1) are not passed
    if live.numel() == 0:
        return
    rows = idx[live]
    start = rows[torch.arange(live.numel(), device=rows.device),
                 (num_accepted_tokens[live].long() - 1) if num_accepted_tokens is not None else 0]
    state = initial_state[start].float()
    T = q.shape[1]
    for t in range(T):
        # v in float32 (fla loads every input as float32; its output takes v's dtype): out is
        # then rounded once, to its own dtype, as an in-place kernel's store rounds it.
        o, state = fused_recurrent_gated_delta_rule(
            q=q[live, t:t + 1], k=k[live, t:t + 1], v=v[live, t:t + 1].float(), g=g[live, t:t + 1],
            beta=beta[live, t:t + 1], scale=scale, initial_state=state, output_final_state=True,
            use_qk_l2norm_in_kernel=use_qk_l2norm_in_kernel, use_gate_in_kernel=use_gate_in_kernel,
            A_log=A_log, dt_bias=dt_bias, use_beta_sigmoid_in_kernel=use_beta_sigmoid_in_kernel,
            allow_neg_eigval=allow_neg_eigval, state_v_first=state_v_first)
        out[live, t:t + 1] = o.to(out.dtype)
        initial_state[rows[:, t if rows.shape[1] > 1 else 0]] = state.to(initial_state.dtype)


gdn_step.kda_op = "fla_recurrent_gdn"
gdn_step.kda_envelope = ENVELOPE
