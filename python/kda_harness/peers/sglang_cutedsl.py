"""SGLang's CuTe-DSL KDA decode (sglang 0.5.10, `sglang.jit_kernel.cutedsl_kda`, needing
`nvidia-cutlass-dsl`) as a step of operator fla_recurrent_kda (docs/peer-decodes.md):

    cutedsl_fused_sigmoid_gating_kda_update(A_log, dt_bias, q, k, v, a, b, initial_state_source,
        initial_state_indices, cu_seqlens=None, scale=None, use_qk_l2norm_in_kernel=True,
        softplus_beta=1.0, softplus_threshold=20.0) -> o

One token per sequence (T = 1, [B] indices, no num_accepted_tokens) on a V-first pool
[N, HV, V, K] updated in place, the gate -exp(A_log) softplus(a + dt_bias) and beta = sigmoid(b)
computed in the kernel, no lower_bound: fla_recurrent_kda's calls with T=1 vfirst=1 gik=1 bsig=1
(the step's `kda_pin`). It returns a new bfloat16 output, which the step copies into `out`.

The module is loaded from the installed sglang distribution's file, without running
`sglang/__init__.py` (which imports SGLang's server and needs its whole dependency set); the
kernel module itself imports only torch, cuda-python and cutlass.

    import kda_harness
    from kda_harness.peers import sglang_cutedsl
    print(kda_harness.check(sglang_cutedsl.kda_step, device="cuda"))
"""
import functools
import importlib.util
from pathlib import Path

from . import installed_version, refuse_other_call_forms
from ..envelope import Envelope

# What the kernel is compiled for (its _get_compiled_kernel): bfloat16 q, k, v, a, b, dt_bias and
# output, a float32 pool and A_log, int32 indices; K = 128 and V a multiple of 128 (its asserts);
# a compact pool (the wrapper calls .contiguous() on it, which copies a strided one).
ENVELOPE = Envelope(act_dtypes=("bfloat16",), state_dtypes=("float32",), out_dtypes=("bfloat16",),
                    index_dtypes=("int32",), k=(128, 128), v=(128, None), strided=False, invalid_rows="none")
PIN = "T=1 idx2d=0 nat=0 vfirst=1 gik=1 bsig=1 lb=none"


def version():
    """sglang's version as installed ("" when it is not)."""
    return installed_version("sglang")


@functools.cache
def _module():
    spec = importlib.util.find_spec("sglang")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("sglang is not installed (pip install sglang==0.5.10 nvidia-cutlass-dsl)")
    path = Path(next(iter(spec.submodule_search_locations))) / "jit_kernel" / "cutedsl_kda.py"
    module_spec = importlib.util.spec_from_file_location("kda_harness_peer_sglang_cutedsl_kda", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def kda_step(q, k, v, g, beta, initial_state, ssm_state_indices, out, A_log=None, dt_bias=None,
             num_accepted_tokens=None, scale=None, use_qk_l2norm_in_kernel=False, use_gate_in_kernel=False,
             use_beta_sigmoid_in_kernel=False, allow_neg_eigval=False, lower_bound=None, state_v_first=False):
    refuse_other_call_forms("SGLang's CuTe-DSL KDA decode", q, ssm_state_indices, num_accepted_tokens,
                            use_gate_in_kernel, use_beta_sigmoid_in_kernel, state_v_first, allow_neg_eigval, lower_bound)
    # A_log is a float32 parameter in SGLang (the kernel is compiled for it); the harness draws it
    # in the activation dtype, so widening it is exact.
    o = _module().cutedsl_fused_sigmoid_gating_kda_update(
        A_log=A_log.float(), dt_bias=dt_bias, q=q, k=k, v=v, a=g, b=beta, initial_state_source=initial_state,
        initial_state_indices=ssm_state_indices, scale=scale, use_qk_l2norm_in_kernel=use_qk_l2norm_in_kernel)
    out.copy_(o)


kda_step.kda_op = "fla_recurrent_kda"
kda_step.kda_envelope = ENVELOPE
kda_step.kda_pin = PIN
