"""The harness's sample space as arrays: cases(op, n, seed) yields Case objects, each with
its one-line config (the line `kda-harness case "<line>"` replays) and the tensors of its
first step, deterministic on every machine."""
import ctypes
from dataclasses import dataclass

from . import _abi, _call, _dlpack, _frameworks, _lib, _status


@dataclass
class Case:
    config: str     # the one-line CaseConfig
    index: int      # its position in the sample space of the seed (-1: from a line)
    tensors: dict   # name -> array, contract.md's names (force_flush absent when None)
    scalars: dict   # scale, use_qk_l2norm_in_kernel, lower_bound

    def kwargs(self):
        """Every argument of the step, by keyword: step_fn(**case.kwargs())."""
        return {**{n: self.tensors.get(n) for n in _call.TENSOR_NAMES}, **self.scalars}


def _convert(dltensors, framework, device):
    if framework == "torch":
        return _frameworks.TorchTensors(device).lend(dltensors)
    arrays = {name: _dlpack.host_copy(t) for name, t in dltensors.items()}
    if framework in (None, "numpy"):
        return arrays
    if callable(framework):
        return {name: framework(a) for name, a in arrays.items()}
    raise ValueError(f"framework must be 'numpy', 'torch' or a callable, not {framework!r}")


def case(config, framework="numpy", device=None, index=-1):
    """The tensors of one case from its config line. framework: "numpy" (host arrays, strides
    and NaN-filled gaps kept), "torch" (on `device`, strides kept), or a callable applied to
    each numpy array (cupy.asarray, jax.numpy.asarray...)."""
    err, handle = _abi.KdaError(), ctypes.c_void_p()
    lib = _lib.lib()
    _status.raise_for(lib.kda_case_materialize(config.encode(), ctypes.byref(handle), ctypes.byref(err)), err)
    try:
        tensors, scalars = _call.read_call(lib.kda_case_call(handle).contents)
        return Case(config, index, _convert(tensors, framework, device), scalars)
    finally:
        lib.kda_case_free(handle)


def config_line(index, seed=1, op=_call.OP, work_budget=None, envelope=None):
    """The config line of case `index` of the sample space of `seed`."""
    err, line = _abi.KdaError(), ctypes.create_string_buffer(1024)
    env = ctypes.byref(envelope.to_c()) if envelope is not None else None
    status = _lib.lib().kda_cases(op.encode(), seed, index, work_budget or 0.0, env, line, len(line), ctypes.byref(err))
    _status.raise_for(status, err)
    return line.value.decode()


def cases(op=_call.OP, n=10, seed=1, *, first=0, work_budget=None, envelope=None, framework="numpy", device=None):
    """Yields cases first .. first+n-1 of the sample space of `seed` (inside `envelope`, an
    Envelope, when given)."""
    for i in range(first, first + n):
        yield case(config_line(i, seed, op, work_budget, envelope), framework, device, index=i)
