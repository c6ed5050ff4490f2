"""FlashInfer's Gated DeltaNet decode (flashinfer-python 0.7.4, `pip install flashinfer-python`)
as a step of operator fla_recurrent_gdn (docs/peer-decodes.md):

    flashinfer.gdn_decode.gated_delta_rule_decode_pretranspose(q, k, v, state, A_log, a, dt_bias, b,
        scale=None, output=None, use_qk_l2norm=True, initial_state=None, initial_state_indices=None,
        ..., backend="auto") -> (output, state)

One token per sequence on a V-first pool [N, HV, V, K] updated in place at
`initial_state_indices`, the gate -exp(A_log) softplus(a + dt_bias) and beta = sigmoid(b) computed
in the kernel: fla_recurrent_gdn's calls with T=1 vfirst=1 gik=1 bsig=1 (the step's `kda_pin`).
On an sm_90 GPU the call runs FlashInfer's CuTe-DSL kernels: the bfloat16-state kernel (K = V =
128; a padding index -1 is redirected to slot 0, which FlashInfer's docstring reserves as a
sacrificial slot the caller must leave unused) or the float32-state kernel (padding skipped, its
output zero). FlashInfer's KDA decodes (`recurrent_kda`, the fused and packed decodes) dispatch
only on compute capability 10.x and cannot run on an H100 or H200.

    import kda_harness
    from kda_harness.peers import flashinfer
    print(kda_harness.check(flashinfer.gdn_step, device="cuda"))
"""
from . import installed_version, refuse_other_call_forms
from ..envelope import INDICES, Envelope

# What the function takes on sm_90 (its asserts and docstring): bfloat16 q, k, v, a, b (float16
# q too, but dt_bias must then be bfloat16 or float32, which the harness's float16 calls are not),
# a float32 or bfloat16 pool at K = V = 128 (the bfloat16 kernel's only shape), int32 or int64
# indices; the kernels write a bfloat16 output, cast to `output`'s dtype, so a wider output holds
# bfloat16 values only. A pool strided between slots must keep each slot's start 16-byte aligned
# (its assert: "stride(0) must be a multiple of 4 FP32 elements for 128-bit state copies"); the
# harness's strided layouts put any gap between slots, so the envelope is compact tensors.
ENVELOPE = Envelope(act_dtypes=("bfloat16",), state_dtypes=("float32", "bfloat16"), out_dtypes=("bfloat16",),
                    index_dtypes=INDICES, k=(128, 128), v=(128, 128), strided=False, invalid_rows="none")
PIN = "T=1 idx2d=0 nat=0 vfirst=1 gik=1 bsig=1"


def version():
    """flashinfer-python's version as installed ("" when it is not)."""
    return installed_version("flashinfer-python")


def gdn_step(q, k, v, g, beta, initial_state, ssm_state_indices, out, A_log=None, dt_bias=None,
             num_accepted_tokens=None, scale=None, use_qk_l2norm_in_kernel=False, use_gate_in_kernel=False,
             use_beta_sigmoid_in_kernel=False, allow_neg_eigval=False, state_v_first=False):
    refuse_other_call_forms("FlashInfer's GDN decode", q, ssm_state_indices, num_accepted_tokens, use_gate_in_kernel,
                            use_beta_sigmoid_in_kernel, state_v_first, allow_neg_eigval)
    from flashinfer.gdn_decode import gated_delta_rule_decode_pretranspose

    # A_log must be float32 (its assert); the harness draws it in the activation dtype, so widening
    # it is exact.
    gated_delta_rule_decode_pretranspose(q=q, k=k, v=v, state=None, A_log=A_log.float(), a=g, dt_bias=dt_bias, b=beta,
                                         scale=scale, output=out, use_qk_l2norm=use_qk_l2norm_in_kernel,
                                         initial_state=initial_state, initial_state_indices=ssm_state_indices)


gdn_step.kda_op = "fla_recurrent_gdn"
gdn_step.kda_envelope = ENVELOPE
gdn_step.kda_pin = PIN
