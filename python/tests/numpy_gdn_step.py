"""A plain numpy GDN ReplaySSM decode step written for the tests (spec/gdn-replayssm.md, "What
it computes"), with SGLang's wrapper signature: one scalar forget gate per value head,
arithmetic in float64 with the kernel's rounding points on this path (beta through b's dtype;
the rebuild's operands, the decayed deltas and the keys, through out's dtype; every store,
the key record's included, rounded to its tensor's dtype by numpy's assignment),
validation by kda_harness.validate(op="gdn_replayssm") (SGLang's checks and messages). Linear
and circular rings (spec circular-replay.md: record j of a row's window at (cache_base + j) mod L;
a natural flush a history checkpoint, storing the state before the token and appending its
record); prefix_gate_cache ignored, as the wrapper ignores it on this path. And a copy with one
planted bug in the bounded gate."""
import numpy as np

import kda_harness
from numpy_step import _gate, _l2, _planted_gate, _sigmoid, through

OP = "gdn_replayssm"


def _step(gate, *, mixed_qkv, a, b, A_log, dt_bias, scale, initial_state, d_cache, k_cache, g_cache, out,
          ssm_state_indices, write_pos, force_flush=None, cache_base=None, lower_bound=None,
          use_qk_l2norm_in_kernel=False, nk=2, circular_replay=False, prefix_gate_cache=False,
          predecayed_k_cache=False):
    kda_harness.validate(op=OP, **{k: v for k, v in locals().items() if k != "gate"}, check_values=True)
    f64 = np.float64
    B = mixed_qkv.shape[0]
    _, HV, V, K = initial_state.shape
    L = d_cache.shape[2]
    H = (mixed_qkv.shape[1] - HV * V) // 2 // K
    head = np.arange(HV) // (HV // H)  # the query/key head of each value head
    A = np.exp(np.asarray(A_log, f64))
    for row in range(B):
        slot = int(ssm_state_indices[row])
        if slot < 0:
            out[row] = 0
            continue
        cursor = int(write_pos[row])
        forced = force_flush is not None and force_flush[row] != 0
        natural = cursor == L - 1
        base = int(cache_base[row]) if circular_replay else 0
        phys = (base + np.arange(cursor + 1)) % L  # the window's records, then the appended one
        flush = forced or (natural and (not circular_replay or L == 1))
        history = natural and not flush
        x = np.asarray(mixed_qkv[row], f64)
        q = x[:H * K].reshape(H, K)[head]
        k = x[H * K:2 * H * K].reshape(H, K)[head]
        v = x[2 * H * K:].reshape(HV, V)
        if use_qk_l2norm_in_kernel:
            q, k = _l2(q), _l2(k)
        q = q * scale
        g = gate(A, np.asarray(a[row], f64) + np.asarray(dt_bias, f64), lower_bound)  # [HV]: one per head
        beta = np.asarray(_sigmoid(np.asarray(b[row], f64)).astype(b.dtype), f64)
        # The state before the token: the checkpoint decayed, plus each record's delta decayed
        # since it (the decay folded onto d before the operands are rounded to out's dtype).
        window = phys[:cursor]
        gates = np.asarray(g_cache[slot][:, window], f64)
        total = gates.sum(axis=1)
        decay = np.exp(total[:, None] - np.cumsum(gates, axis=1))
        deltas = through(np.asarray(d_cache[slot][:, window], f64) * decay[:, :, None], out.dtype)
        keys = through(np.asarray(k_cache[slot][head][:, window], f64), out.dtype)
        S = np.asarray(initial_state[slot], f64) * np.exp(total)[:, None, None]
        S = S + np.einsum("hnv,hnk->hvk", deltas, keys)
        if history:  # the checkpoint holds the state before the token
            initial_state[slot] = S
        # The token: the sums over K first, then the decay exp(g).
        eg = np.exp(g)
        d = beta[:, None] * (v - eg[:, None] * np.einsum("hvk,hk->hv", S, k))
        out[row, 0] = eg[:, None] * np.einsum("hvk,hk->hv", S, q) + d * np.sum(k * q, axis=1)[:, None]
        if flush:
            initial_state[slot] = eg[:, None, None] * S + d[:, :, None] * k[:, None, :]
        else:
            at = phys[cursor]
            d_cache[slot, :, at] = d
            g_cache[slot, :, at] = g
            first = np.r_[True, head[1:] != head[:-1]]  # one value head of each group writes the key
            k_cache[slot, head[first], at] = k[first]


def gdn_step(**kwargs):
    _step(_gate, **kwargs)


def gdn_step_planted_bug(**kwargs):
    _step(_planted_gate, **kwargs)
