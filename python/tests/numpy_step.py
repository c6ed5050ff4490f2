"""A plain numpy ReplaySSM decode step written for the tests (semantics.md, "The ReplaySSM
step"), with SGLang's wrapper signature: arithmetic in float64 with the Helion rounding points
(beta through b's dtype, the rebuild's product operands through out's dtype, every store
rounded to its tensor's dtype by numpy's assignment), validation by kda_harness.validate
(SGLang's checks and messages). And a copy of it with one planted bug in the bounded gate."""
import numpy as np

import kda_harness


def _softplus(x):
    return np.where(x <= 20.0, np.log1p(np.exp(np.minimum(x, 20.0))), x)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _gate(A, x, lower_bound):
    if lower_bound is not None:
        return lower_bound * _sigmoid(A * x)
    return -A * _softplus(x)


def _planted_gate(A, x, lower_bound):
    if lower_bound is not None:
        return lower_bound * _sigmoid(x)  # the bug: the decay rate A is left out
    return -A * _softplus(x)


def through(x, dtype):
    """x rounded to dtype (round to nearest even) and back."""
    return np.asarray(x).astype(dtype).astype(np.float64)


def _l2(x):
    return x / np.sqrt(np.sum(x * x, axis=-1, keepdims=True) + 1e-6)


def _step(gate, *, mixed_qkv, a, b, A_log, dt_bias, scale, initial_state, d_cache, k_cache, g_cache, out,
          ssm_state_indices, write_pos, force_flush=None, use_qk_l2norm_in_kernel=False, lower_bound=None):
    kda_harness.validate(**{k: v for k, v in locals().items() if k != "gate"}, check_values=True)
    f64 = np.float64
    B = mixed_qkv.shape[0]
    _, HV, V, K = initial_state.shape
    L = d_cache.shape[2]
    H = (mixed_qkv.shape[1] - HV * V) // 2 // K
    head = np.arange(HV) // (HV // H)  # the query/key head of each value head
    A = np.exp(np.asarray(A_log, f64))
    bias = np.asarray(dt_bias, f64).reshape(HV, K)
    for row in range(B):
        slot = int(ssm_state_indices[row])
        if slot < 0:
            out[row] = 0
            continue
        cursor = int(write_pos[row])
        flush = cursor == L - 1 or (force_flush is not None and force_flush[row] != 0)
        x = np.asarray(mixed_qkv[row], f64)
        q = x[:H * K].reshape(H, K)[head]
        k = x[H * K:2 * H * K].reshape(H, K)[head]
        v = x[2 * H * K:].reshape(HV, V)
        if use_qk_l2norm_in_kernel:
            q, k = _l2(q), _l2(k)
        g = gate(A[:, None], np.asarray(a[row], f64).reshape(HV, K) + bias, lower_bound)
        beta = np.asarray(_sigmoid(np.asarray(b[row], f64)).astype(b.dtype), f64)
        # The state before the token: checkpoint decayed, plus each record decayed since it.
        gates = np.asarray(g_cache[slot, :, :cursor], f64)
        total = gates.sum(axis=1)
        decay = np.exp(total[:, None, :] - np.cumsum(gates, axis=1))
        # The rebuild's product operands are rounded to out's dtype (the Helion rounding points).
        keys = through(np.asarray(k_cache[slot][head][:, :cursor], f64) * decay, out.dtype)
        deltas = through(np.asarray(d_cache[slot, :, :cursor], f64), out.dtype)
        S = np.asarray(initial_state[slot], f64) * np.exp(total)[:, None, :]
        S = S + np.einsum("hnv,hnk->hvk", deltas, keys)
        S = S * np.exp(g)[:, None, :]
        d = beta[:, None] * (v - np.einsum("hvk,hk->hv", S, k))
        S = S + d[:, :, None] * k[:, None, :]
        out[row, 0] = np.einsum("hvk,hk->hv", S, q * scale)
        if flush:
            initial_state[slot] = S
        else:
            d_cache[slot, :, cursor] = d
            g_cache[slot, :, cursor] = g
            first = np.r_[True, head[1:] != head[:-1]]  # one value head of each group writes the key
            k_cache[slot, head[first], cursor] = k[first]


def replayssm_step(**kwargs):
    _step(_gate, **kwargs)


def replayssm_step_planted_bug(**kwargs):
    _step(_planted_gate, **kwargs)
