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


class TorchTensors:
    """torch copies on `device` ("cpu", "cuda", "cuda:1"): each tensor's whole byte span goes
    over as one uint8 block and is viewed with the harness's shape and strides."""

    def __init__(self, device="cuda"):
        import torch

        self.torch = torch
        self.device = torch.device(device or "cpu")
        self._pending = []

    def _copy_in(self, t):
        torch = self.torch
        view, span = _dlpack.host_view(t, raw_bfloat16=True)
        dtype = torch_dtype(torch, t.dtype.code, t.dtype.bits)
        if span is None:
            return torch.empty(view.shape, dtype=dtype, device=self.device)
        block = torch.from_numpy(span.copy()).to(self.device)
        shape, strides = _dlpack.shape_strides(t)
        lo = _dlpack.element_span(shape, strides)[0]
        typed = block.view(dtype)
        self._pending.append((span, block))
        return typed.as_strided(shape, strides, -lo)

    def lend(self, dltensors):
        self._pending = []
        return {name: self._copy_in(t) for name, t in dltensors.items()}

    def give_back(self):
        for span, block in self._pending:
            span[:] = block.cpu().numpy()
        self._pending = []


def adapter(framework, device):
    """The tensors a step function is called with: "numpy" or "torch"."""
    if framework in (None, "numpy"):
        return NumpyTensors(device)
    if framework == "torch":
        return TorchTensors(device)
    raise ValueError(f"framework must be 'numpy' or 'torch', not {framework!r}")
