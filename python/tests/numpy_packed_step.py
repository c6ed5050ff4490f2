"""A plain numpy packed KDA decode step written for the tests (spec/packed-decode.md), with the
signature of SGLang's helion_fused_recurrent_kda_packed_decode: one token of the plain
recurrence per row and value head, in place, arithmetic in float64, beta = sigmoid(b) kept
unrounded (this operator does not round it through b's dtype), the stores rounded to their
tensors' dtypes by numpy's assignment; validation by kda_harness.validate (SGLang's checks and
messages). And a copy of it with a planted bug: beta rounded through b's dtype, as ReplaySSM
does."""
import numpy as np

import kda_harness

OP = "kda_packed_decode"


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _gate(A, x, lower_bound):
    if lower_bound is not None:
        return lower_bound * _sigmoid(A * x)
    return -A * np.where(x <= 20.0, np.log1p(np.exp(np.minimum(x, 20.0))), x)


def _l2(x):
    return x / np.sqrt(np.sum(x * x, axis=-1, keepdims=True) + 1e-6)


def _step(round_beta, *, mixed_qkv, a, b, A_log, dt_bias, scale, initial_state, out, ssm_state_indices,
          use_qk_l2norm_in_kernel=False, lower_bound=None):
    kda_harness.validate(op=OP, check_values=True, **{k: v for k, v in locals().items() if k != "round_beta"})
    f64 = np.float64
    _, HV, V, K = initial_state.shape
    H = (mixed_qkv.shape[1] - HV * V) // 2 // K
    head = np.arange(HV) // (HV // H)  # the query/key head of each value head
    A = np.exp(np.asarray(A_log, f64))
    bias = np.asarray(dt_bias, f64).reshape(HV, K)
    for row in range(mixed_qkv.shape[0]):
        slot = int(ssm_state_indices[row])
        if slot < 0:
            out[row] = 0
            continue
        x = np.asarray(mixed_qkv[row], f64)
        q = x[:H * K].reshape(H, K)[head]
        k = x[H * K:2 * H * K].reshape(H, K)[head]
        v = x[2 * H * K:].reshape(HV, V)
        if use_qk_l2norm_in_kernel:
            q, k = _l2(q), _l2(k)
        g = _gate(A[:, None], np.asarray(a[row], f64).reshape(HV, K) + bias, lower_bound)
        beta = _sigmoid(np.asarray(b[row], f64))
        if round_beta:
            beta = beta.astype(b.dtype).astype(f64)
        S = np.asarray(initial_state[slot], f64) * np.exp(g)[:, None, :]
        d = beta[:, None] * (v - np.einsum("hvk,hk->hv", S, k))
        S = S + d[:, :, None] * k[:, None, :]
        out[row, 0] = np.einsum("hvk,hk->hv", S, q * scale)
        initial_state[slot] = S


def packed_decode_step(**kwargs):
    _step(False, **kwargs)


def packed_decode_step_beta_rounded(**kwargs):
    _step(True, **kwargs)
