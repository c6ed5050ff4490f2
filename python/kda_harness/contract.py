"""validate() and reference_step(): an operator's contract and reference on the caller's
tensors (any DLPack producer), keyword arguments named as contract.md names them."""
import ctypes
import numbers
from typing import NamedTuple

from . import _abi, _call, _lib, _operators, _status

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


def _choice(name, value, table):
    """table[value], or a ValueError naming the choices."""
    try:
        return table[value]
    except (KeyError, TypeError):
        choices = ", ".join(repr(k) for k in table if k is not None)
        raise ValueError(f"{name} must be one of {choices}, not {value!r}") from None


# What a step writes in place: a read-only array there (a view over a bytes object, a frozen
# array) would be written through anyway by C, so it is refused.
_WRITTEN = ("initial_state", "d_cache", "k_cache", "g_cache", "out")


def _refuse_read_only(tensors):
    for name in _WRITTEN:
        t = tensors.get(name)
        flags = getattr(t, "flags", None)
        if flags is not None and not flags.writeable:
            raise ValueError(f"reference_step writes {name} in place, but the array given is read-only")
        if isinstance(t, (bytes, memoryview)) and (isinstance(t, bytes) or t.readonly):
            raise ValueError(f"reference_step writes {name} in place, but the buffer given is read-only")


def validate(*, op=None, device=None, check_values=False, **arguments):
    """Every check of operator `op`'s contract in its order (contract.md; the plain packed
    decode's: spec/packed-decode.md; GDN ReplaySSM's: spec/gdn-replayssm.md), on metadata
    only. The arguments by keyword, the specs' names: the tensors the operator takes
    (kda_replayssm: mixed_qkv ... write_pos, force_flush optional; kda_packed_decode: no rings,
    write_pos or force_flush; gdn_replayssm: cache_base optional too) and any of its scalars
    (scale, use_qk_l2norm_in_kernel, lower_bound; gdn_replayssm also nk, circular_replay,
    prefix_gate_cache, predecayed_k_cache; one left out takes its default). Returns the
    inferred Dims (L = 0 without rings), or raises ContractError (a ValueError whose text is
    the catalog message, `id` its id). device: "cpu" or "cuda" adds the harness's device
    check; check_values (host index tensors) adds the runtime-value checks."""
    op = _operators.resolve(op)
    tensors, scalars = _operators.call_arguments(op, arguments, "validate")
    call = _call.Call(tensors, scalars, op=op)
    dims, err = _abi.KdaDims(), _abi.KdaError()
    status = _lib.lib().kda_validate(call.pointer(), _choice("device", device, _DEVICES), int(bool(check_values)),
                                     ctypes.byref(dims), ctypes.byref(err))
    _status.raise_for(status, err)
    return _dims(dims)


def reference_step(*, scale, op=None, rounding="kernel", **arguments):
    """One step of operator `op`'s reference (the ReplaySSM step, the plain packed decode, or
    the GDN ReplaySSM step), in place on host tensors (numpy, or any host DLPack producer whose
    memory it may write); the arguments as validate() takes them. rounding "kernel": the
    kernel's rounding points; "off": double arithmetic. Validates first (raising
    ContractError, writing nothing); a read-only array where the step writes is a ValueError,
    a scale that is not a real number a TypeError. Returns the Dims."""
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
        raise TypeError(f"reference_step() scale must be a real number, not {scale!r}")
    rounding_code = _choice("rounding", rounding, _ROUNDINGS)
    op = _operators.resolve(op)
    tensors, scalars = _operators.call_arguments(op, arguments, "reference_step")
    _refuse_read_only(tensors)
    call = _call.Call(tensors, {**scalars, "scale": scale}, op=op)
    dims, err = _abi.KdaDims(), _abi.KdaError()
    status = _lib.lib().kda_reference_step(call.pointer(), rounding_code, ctypes.byref(dims), ctypes.byref(err))
    _status.raise_for(status, err)
    return _dims(dims)
