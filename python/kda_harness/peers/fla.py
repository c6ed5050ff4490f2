"""flash-linear-attention's recurrent decode kernels (fla-core, `pip install fla-core`) as step
functions of the harness's operators (docs/fla-recurrent-decode.md):

- kda_step: fla.ops.kda.fused_recurrent.fused_recurrent_kda_fwd, the continuous-batching decode
  (a state pool updated in place at ssm_state_indices, speculative decoding through
  num_accepted_tokens), as operator fla_recurrent_kda.

    import kda_harness
    from kda_harness.peers import fla
    print(kda_harness.check(fla.kda_step, device="cuda"))
"""
from ..envelope import FLOATS, INDICES, Envelope

# What fla's Triton kernels take: every float dtype (each load is converted to float32, each
# store to the tensor's dtype), any K and V (masked tiles), int32 or int64 indices; compact
# tensors only (the kernels index q, k, v, g, beta, out and a state slot as packed arrays and
# read no strides but the pool's first); runtime values unchecked (the caller's duty).
ENVELOPE = Envelope(act_dtypes=FLOATS, state_dtypes=FLOATS, out_dtypes=FLOATS, index_dtypes=INDICES,
                    strided=False, invalid_rows="none")


def version():
    """fla-core's version as installed ("" when it is not)."""
    try:
        from importlib.metadata import version as installed
        return installed("fla-core")
    except Exception:
        return ""


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
