"""The caller's tensors: the harness's host tensors copied into numpy arrays that own their
memory, or into torch tensors on the caller's device, with the same strides and gaps, and
copied back after the call (every byte of every tensor, so a stray write shows)."""
import numpy as np

from . import _dlpack


class NumpyTensors:
    """numpy copies of the harness's memory, strides and gaps kept, copied back after the call.
    The arrays own their memory: a step that keeps one and writes it later writes only that
    array, never the harness's buffers (freed once the case ends)."""

    def __init__(self, device="cpu"):
        if device not in (None, "cpu"):
            raise ValueError(f"numpy tensors live on the host, not on {device!r}")
        self._pending = []

    def _copy_in(self, t):
        view, span = _dlpack.host_view(t)
        if span is None:
            return view  # no elements: nothing to copy, the strides kept
        owned = span.copy()
        self._pending.append((span, owned))
        shape, strides = _dlpack.shape_strides(t)
        lo = _dlpack.element_span(shape, strides)[0]
        return np.lib.stride_tricks.as_strided(owned.view(view.dtype)[-lo:], shape=shape, strides=view.strides)

    def lend(self, dltensors):
        self._pending = []
        return {name: self._copy_in(t) for name, t in dltensors.items()}

    def give_back(self):
        for span, owned in self._pending:
            span[:] = owned  # every byte, gaps included, so that a stray write shows
        self._pending = []


_TORCH_DTYPES = {"float32": "float32", "float16": "float16", "bfloat16": "bfloat16", "int32": "int32",
                 "int64": "int64", "float64": "float64", "uint8": "uint8"}


def torch_dtype(torch, code, bits):
    name = _dlpack.dtype_name(code, bits)
    if name not in _TORCH_DTYPES:
        raise TypeError(f"no torch dtype for {name}")
    return getattr(torch, _TORCH_DTYPES[name])


class StrayWrite(RuntimeError):
    """The step wrote outside a tensor it was lent (into a guard region around it)."""


_GUARD_BYTE = 0xA5


def guard_bytes(nbytes):
    """The guard region on each side of a tensor of `nbytes`: as large as the tensor (a kernel
    that indexes one slot, row or head past either end lands in it), at least 4 KiB, at most
    64 MiB, a multiple of 512 bytes (so the tensor keeps the allocation's alignment)."""
    return min(max(4096, -(-nbytes // 512) * 512), 64 << 20)


class TorchTensors:
    """torch copies on `device` ("cpu", "cuda", "cuda:1"): each tensor's whole byte span goes
    over as one uint8 block and is viewed with the harness's shape and strides. The block has a
    guard region on each side (guard_bytes), filled with one byte pattern and checked when the
    tensors are given back: a write past either end of a tensor (a padding row read as slot
    -1, a row past the pool) raises StrayWrite naming the tensor, where without guards it would
    land in memory of the framework's allocator that nobody reads."""

    def __init__(self, device="cuda"):
        import torch

        self.torch = torch
        self.device = torch.device(device or "cpu")
        self._pending = []

    def _copy_in(self, name, t):
        torch = self.torch
        view, span = _dlpack.host_view(t, raw_bfloat16=True)
        dtype = torch_dtype(torch, t.dtype.code, t.dtype.bits)
        if span is None:
            return torch.empty(view.shape, dtype=dtype, device=self.device)
        nbytes, guard = span.nbytes, guard_bytes(span.nbytes)
        block = torch.full((2 * guard + nbytes,), _GUARD_BYTE, dtype=torch.uint8, device=self.device)
        block[guard:guard + nbytes].copy_(torch.from_numpy(span.copy()))
        shape, strides = _dlpack.shape_strides(t)
        lo = _dlpack.element_span(shape, strides)[0]
        typed = block.view(dtype)
        self._pending.append((name, span, block, guard))
        return typed.as_strided(shape, strides, guard // typed.element_size() - lo)

    def lend(self, dltensors):
        self._pending = []
        return {name: self._copy_in(name, t) for name, t in dltensors.items()}

    def give_back(self):
        """Copies every tensor back, then raises StrayWrite if a guard region changed."""
        strays = []
        for name, span, block, guard in self._pending:
            nbytes = span.nbytes
            span[:] = block[guard:guard + nbytes].cpu().numpy()
            before = int((block[:guard] != _GUARD_BYTE).sum())
            after = int((block[guard + nbytes:] != _GUARD_BYTE).sum())
            if before or after:
                where = [f"{n} byte(s) in the {guard} before its first byte" for n in [before] if n] + \
                        [f"{n} byte(s) in the {guard} after its last byte" for n in [after] if n]
                strays.append(f"{name}: {' and '.join(where)}")
        self._pending = []
        if strays:
            raise StrayWrite("the step wrote outside the tensors it was lent: " + "; ".join(strays))


def adapter(framework, device):
    """The tensors a step function is called with: "numpy" or "torch"."""
    if framework in (None, "numpy"):
        return NumpyTensors(device)
    if framework == "torch":
        return TorchTensors(device)
    raise ValueError(f"framework must be 'numpy' or 'torch', not {framework!r}")
