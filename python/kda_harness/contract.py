"""validate() and reference_step(): the contract and the reference on the caller's tensors
(any DLPack producer), keyword arguments named as contract.md names them."""
import ctypes
from typing import NamedTuple

from . import _abi, _call, _lib, _status

_DEVICES = {None: 0, "any": 0, "cpu": 1, "cuda": 2}
_ROUNDINGS = {"kernel": 0, "off": 1}


class Dims(NamedTuple):
    """What validation infers: B, H, HV, K, V, L, and slots = initial_state.shape[0]."""
    B: int
    H: int
    HV: int
    K: int
    V: int
    L: int
    slots: int


def _dims(d):
    return Dims(d.B, d.H, d.HV, d.K, d.V, d.L, d.slots)


def _tensors(**kw):
    return {k: v for k, v in kw.items() if k in _call.TENSOR_NAMES}


def validate(*, mixed_qkv, a, b, A_log, dt_bias, initial_state, d_cache, k_cache, g_cache, out, ssm_state_indices,
             write_pos, force_flush=None, scale=None, use_qk_l2norm_in_kernel=False, lower_bound=None,
             op=_call.OP, device=None, check_values=False):
    """Every check of contract.md in its order, on metadata only. Returns the inferred Dims,
    or raises ContractError (a ValueError whose text is the catalog message, `id` its id).
    device: "cpu" or "cuda" adds the harness's device check; check_values (host index
    tensors) adds the runtime-value checks."""
    if op != _call.OP:
        raise ValueError(f"unknown operator {op!r} (known: {_call.OP!r})")
    call = _call.Call(_tensors(**locals()), scale, use_qk_l2norm_in_kernel, lower_bound)
    dims, err = _abi.KdaDims(), _abi.KdaError()
    status = _lib.lib().kda_validate(call.pointer(), _DEVICES[device], int(bool(check_values)), ctypes.byref(dims),
                                     ctypes.byref(err))
    _status.raise_for(status, err)
    return _dims(dims)


def reference_step(*, mixed_qkv, a, b, A_log, dt_bias, scale, initial_state, d_cache, k_cache, g_cache, out,
                   ssm_state_indices, write_pos, force_flush=None, use_qk_l2norm_in_kernel=False, lower_bound=None,
                   rounding="kernel"):
    """One ReplaySSM step of the reference, in place on host tensors (numpy, or any host
    DLPack producer whose memory it may write). rounding "kernel": the kernel's rounding
    points; "off": double arithmetic. Validates first (raising ContractError, writing
    nothing). Returns the Dims."""
    call = _call.Call(_tensors(**locals()), scale, use_qk_l2norm_in_kernel, lower_bound)
    dims, err = _abi.KdaDims(), _abi.KdaError()
    status = _lib.lib().kda_reference_step(call.pointer(), _ROUNDINGS[rounding], ctypes.byref(dims), ctypes.byref(err))
    _status.raise_for(status, err)
    return _dims(dims)
