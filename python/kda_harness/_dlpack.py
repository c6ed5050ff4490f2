"""Tensors across the C boundary, without copies.

to_dltensor: any array the caller has -> a DLTensor the harness borrows (numpy arrays,
ml_dtypes' bfloat16 included, are described directly; anything else with `__dlpack__`, such
as torch, cupy or jax arrays, through its DLPack capsule).
host_view: a host DLTensor the harness lends -> a numpy array over the same memory, strides
and gaps kept."""
import ctypes

import numpy as np

from . import _abi

# DLPack type codes.
_INT, _UINT, _FLOAT, _BFLOAT, _BOOL = 0, 1, 2, 4, 6

_NUMPY_TO_DL = {
    np.dtype(np.float64): (_FLOAT, 64), np.dtype(np.float32): (_FLOAT, 32), np.dtype(np.float16): (_FLOAT, 16),
    np.dtype(np.int64): (_INT, 64), np.dtype(np.int32): (_INT, 32), np.dtype(np.int16): (_INT, 16),
    np.dtype(np.int8): (_INT, 8), np.dtype(np.uint8): (_UINT, 8), np.dtype(np.uint16): (_UINT, 16),
    np.dtype(np.uint32): (_UINT, 32), np.dtype(np.uint64): (_UINT, 64), np.dtype(np.bool_): (_BOOL, 8),
}


def bfloat16_dtype():
    """numpy's bfloat16 (ml_dtypes), or None where ml_dtypes is not installed."""
    try:
        import ml_dtypes
    except ImportError:
        return None
    return np.dtype(ml_dtypes.bfloat16)


def numpy_dtype(code, bits, raw_bfloat16=False):
    """The numpy dtype of a DLPack (code, bits); bfloat16 as uint16 when raw_bfloat16 (or
    without ml_dtypes, for callers that reinterpret it themselves)."""
    if (code, bits) == (_BFLOAT, 16):
        bf16 = None if raw_bfloat16 else bfloat16_dtype()
        if bf16 is None and not raw_bfloat16:
            raise ImportError("bfloat16 tensors as numpy arrays need ml_dtypes (pip install ml_dtypes)")
        return bf16 if bf16 is not None else np.dtype(np.uint16)
    for dt, key in _NUMPY_TO_DL.items():
        if key == (code, bits):
            return dt
    raise TypeError(f"no numpy dtype for DLPack code {code} bits {bits}")


def dtype_name(code, bits):
    return {(_FLOAT, 32): "float32", (_FLOAT, 16): "float16", (_BFLOAT, 16): "bfloat16", (_INT, 32): "int32",
            (_INT, 64): "int64", (_FLOAT, 64): "float64", (_UINT, 8): "uint8"}.get((code, bits), f"code{code}_{bits}")


class Borrowed:
    """Keeps alive what the DLTensors of one call point into (arrays, capsules, shape arrays)."""

    def __init__(self):
        self._refs = []

    def keep(self, obj):
        self._refs.append(obj)
        return obj


def _numpy_key(dtype):
    bf16 = bfloat16_dtype()
    if bf16 is not None and dtype == bf16:
        return (_BFLOAT, 16)
    try:
        return _NUMPY_TO_DL[dtype]
    except KeyError:
        raise TypeError(f"numpy dtype {dtype} has no DLPack equivalent here") from None


def _from_numpy(arr, keep):
    code, bits = _numpy_key(arr.dtype)
    item = arr.dtype.itemsize
    if any(s % item for s in arr.strides):
        raise ValueError(f"array strides {arr.strides} are not multiples of its item size {item}")
    t = _abi.DLTensor()
    t.data = arr.ctypes.data
    t.device = _abi.DLDevice(_abi.KDL_CPU, 0)
    t.ndim = arr.ndim
    t.dtype = _abi.DLDataType(code, bits, 1)
    t.shape = keep((ctypes.c_int64 * max(arr.ndim, 1))(*arr.shape))
    t.strides = keep((ctypes.c_int64 * max(arr.ndim, 1))(*(s // item for s in arr.strides)))
    t.byte_offset = 0
    keep(arr)
    return t


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _from_capsule_producer(x, keep):
    # The capsule owns the producer's DLManagedTensor and frees it when collected: keeping it
    # alive for the call is all a borrower must do (it is never renamed "used_dltensor").
    capsule = keep(x.__dlpack__())
    managed = _abi.DLManagedTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    src = managed.dl_tensor
    t = _abi.DLTensor()
    t.data = (src.data or 0) + src.byte_offset
    t.device = _abi.DLDevice(src.device.device_type, src.device.device_id)
    t.ndim = src.ndim
    t.dtype = _abi.DLDataType(src.dtype.code, src.dtype.bits, src.dtype.lanes)
    t.shape = src.shape
    t.strides = src.strides  # NULL means compact, as DLPack defines it
    t.byte_offset = 0
    keep(x)
    return t


def to_dltensor(x, keep):
    """A DLTensor over x's memory; what it points into is kept by `keep` (Borrowed.keep)."""
    if isinstance(x, np.ndarray):
        return _from_numpy(x, keep)
    if hasattr(x, "__dlpack__"):
        return _from_capsule_producer(x, keep)
    if isinstance(x, (list, tuple, int, float)):
        return _from_numpy(np.asarray(x), keep)
    raise TypeError(f"{type(x).__name__} is not an array (no __dlpack__)")


def shape_strides(t):
    shape = tuple(t.shape[i] for i in range(t.ndim))
    if t.strides:
        strides = tuple(t.strides[i] for i in range(t.ndim))
    else:
        strides, acc = [], 1  # compact as torch.empty(shape) has it: a zero-size dim counts as 1
        for n in reversed(shape):
            strides.insert(0, acc)
            acc *= max(n, 1)
        strides = tuple(strides)
    return shape, strides


def element_span(shape, strides):
    """(lowest, highest) element offset a tensor of this shape and strides addresses; None
    when it has no elements."""
    if any(n == 0 for n in shape):
        return None
    lo = sum(min(0, (n - 1) * s) for n, s in zip(shape, strides))
    hi = sum(max(0, (n - 1) * s) for n, s in zip(shape, strides))
    return lo, hi


def host_view(t, raw_bfloat16=False):
    """(array, span): a numpy array over a host DLTensor's memory (writable), and the uint8
    array of every byte it can address (span; None when empty)."""
    if t.device.device_type != _abi.KDL_CPU:
        raise ValueError("host_view needs a host tensor")
    dtype = numpy_dtype(t.dtype.code, t.dtype.bits, raw_bfloat16)
    shape, strides = shape_strides(t)
    extent = element_span(shape, strides)
    if extent is None:  # no memory to view, but the strides kept: a contract may read them
        empty = np.empty(0, dtype=dtype)
        return np.lib.stride_tricks.as_strided(empty, shape=shape, strides=tuple(s * dtype.itemsize for s in strides)), None
    lo, hi = extent
    item = dtype.itemsize
    nbytes = (hi - lo + 1) * item
    buf = (ctypes.c_uint8 * nbytes).from_address(t.data + t.byte_offset + lo * item)
    span = np.frombuffer(buf, dtype=np.uint8)
    flat = span.view(dtype)
    view = np.lib.stride_tricks.as_strided(flat[-lo:], shape=shape, strides=tuple(s * item for s in strides))
    return view, span


def host_copy(t):
    """A numpy array owning a copy of a host DLTensor's bytes, strides and gaps kept."""
    view, span = host_view(t)
    if span is None:
        return view  # owns no memory of the tensor's
    shape, strides = shape_strides(t)
    lo = element_span(shape, strides)[0]
    flat = span.copy().view(view.dtype)
    return np.lib.stride_tricks.as_strided(flat[-lo:], shape=shape, strides=view.strides)
