"""A kernel shipped as a plugin shared library (plugin.h) as a Python callable with the
signature of SGLang's wrapper of the plugin's operator: its tensors (torch CUDA tensors for a
CUDA plugin, numpy arrays for a host one; any DLPack producer) go to the plugin's step as
DLTensors, a refusal comes back as a ValueError with the plugin's last_error text. The
callable carries the plugin's operator, envelope and profile, which check() uses."""
import ctypes

from . import _abi, _call, _lib, _operators, _status
from .envelope import Envelope

_PROFILE_NAMES = {v: k for k, v in _abi.PROFILES.items()}


class PluginCallable:
    def __init__(self, path):
        self.path = str(path)
        self._lib = ctypes.CDLL(self.path)
        try:
            describe = self._lib.kda_plugin_describe
        except AttributeError:
            raise ValueError(f"{self.path} is no plugin: it does not export kda_plugin_describe (plugin.h)") from None
        describe.restype, describe.argtypes = ctypes.POINTER(_abi.KdaPlugin), []
        pointer = describe()
        # The harness's one loader decides what it takes (a null step or operator, an unknown
        # profile, an empty envelope: ValueError), as `kda-harness --backend plugin:` does.
        err = _abi.KdaError()
        _status.raise_for(_lib.lib().kda_plugin_check(pointer, self.path.encode(), ctypes.byref(err)), err)
        self.plugin = pointer.contents
        self.name = (self.plugin.name or b"").decode("utf-8", "backslashreplace")
        self.kda_op = self.plugin.op.decode()
        # A version 1 description ends before invalid_rows: it claims nothing of invalid rows.
        invalid_rows = self.plugin.invalid_rows if self.plugin.abi_version >= 2 else _abi.INVALID_ROWS["none"]
        # A version 1 or 2 description ends before ring_modes: it serves linear rings only.
        ring_modes = self.plugin.ring_modes if self.plugin.abi_version >= 3 else _abi.RING_MODES["linear"]
        self.kda_envelope = Envelope.from_c(self.plugin.envelope, invalid_rows, ring_modes)
        self.kda_profile = _PROFILE_NAMES.get(self.plugin.profile, self.plugin.profile)
        self.device_type = self.plugin.envelope.device_type
        self.__qualname__ = self.name

    def _stream(self):
        if self.device_type != _abi.KDL_CUDA:
            return None
        import torch

        return torch.cuda.current_stream().cuda_stream

    def __call__(self, *, scale, **arguments):
        tensors, scalars = _operators.call_arguments(self.kda_op, arguments, self.name or "plugin")
        call = _call.Call(tensors, {**scalars, "scale": scale}, stream=self._stream(), op=self.kda_op)
        if self.plugin.step(self.plugin.state, ctypes.byref(call.call)) != 0:
            message = self.plugin.last_error(self.plugin.state) if self.plugin.last_error else None
            raise ValueError(ctypes.string_at(message).decode("utf-8", "replace") if message else "refused")


def load_plugin(path):
    """The plugin shared library at `path` as a callable (PluginCallable)."""
    return PluginCallable(path)
