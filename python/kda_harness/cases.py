"""An operator's sample space as arrays: cases(op, n, seed) yields Case objects, each with
its one-line config (the line `kda-harness case "<line>"` replays; op=OP names an operator
other than the default) and the tensors of
its first step that the operator takes, deterministic on every machine."""
import ctypes
from dataclasses import dataclass

from . import _abi, _call, _dlpack, _frameworks, _lib, _operators, _status
from .envelope import Envelope


@dataclass
class Case:
    config: str     # the one-line CaseConfig of the tensors
    index: int      # its position in the sample space of the seed (-1: from a line)
    tensors: dict   # name -> array, contract.md's names: the operator's (force_flush absent when None)
    scalars: dict   # the operator's scalars by name (scale, use_qk_l2norm_in_kernel, lower_bound, ...)
    op: str = None  # the operator whose call the tensors are (None: the default operator)

    def kwargs(self):
        """Every argument of the operator's step, by keyword: step_fn(**case.kwargs())."""
        return {**{n: self.tensors.get(n) for n in _operators.tensor_names(_operators.resolve(self.op))}, **self.scalars}


def _convert(dltensors, framework, device):
    if framework == "torch":
        return _frameworks.TorchTensors(device).lend(dltensors)
    arrays = {name: _dlpack.host_copy(t) for name, t in dltensors.items()}
    if framework in (None, "numpy"):
        return arrays
    if callable(framework):
        return {name: framework(a) for name, a in arrays.items()}
    raise ValueError(f"framework must be 'numpy', 'torch' or a callable, not {framework!r}")


def case(config, framework="numpy", device=None, index=-1, op=None):
    """The tensors of one case of operator `op` (None: the one the line names, op=NAME, else the
    default; a line that names another than `op` is a ValueError naming both) from its config line (made one of the
    operator's first: the plain packed decode's have L = 1 and no force_flush; Case.config is
    that line, in full). framework: "numpy" (host arrays, strides and NaN-filled gaps kept),
    "torch" (on `device`, strides kept), or a callable applied to each numpy array
    (cupy.asarray, jax.numpy.asarray...)."""
    if op:
        _operators.tensor_names(op)  # an unknown operator is a ValueError naming the known ones
    err, handle = _abi.KdaError(), ctypes.c_void_p()
    lib = _lib.lib()
    _status.raise_for(lib.kda_case_materialize(op.encode() if op else None, config.encode(), ctypes.byref(handle),
                                               ctypes.byref(err)), err)
    try:
        tensors, scalars = _call.read_call(lib.kda_case_call(handle).contents)
        line = lib.kda_case_config(handle).decode()
        return Case(line, index, _convert(tensors, framework, device), scalars,
                    _operators.resolve(_operators.of_line(line)))
    finally:
        lib.kda_case_free(handle)


def config_line(index, seed=1, op=None, work_budget=None, envelope=None, restrict=None):
    """The config line of case `index` of operator `op`'s sample space of `seed` (inside
    `envelope` narrowed by `restrict`, as check() draws). op None: the default operator."""
    op = _operators.resolve(op)
    err, line = _abi.KdaError(), ctypes.create_string_buffer(1024)
    if restrict is not None:
        envelope = (envelope or Envelope()).narrowed(restrict)
    env = ctypes.byref(envelope.to_c()) if envelope is not None else None
    status = _lib.lib().kda_cases(op.encode(), _abi.checked_seed(seed), index, work_budget or 0.0, env, line, len(line), ctypes.byref(err))
    _status.raise_for(status, err)
    return line.value.decode()


def cases(op=None, n=10, seed=1, *, first=0, work_budget=None, envelope=None, restrict=None, framework="numpy",
          device=None):
    """Yields cases first .. first+n-1 of operator `op`'s sample space of `seed` (inside
    `envelope`, an Envelope, when given, narrowed by `restrict`). op None: the default operator."""
    op = _operators.resolve(op)
    for i in range(first, first + n):
        yield case(config_line(i, seed, op, work_budget, envelope, restrict), framework, device, index=i, op=op)


_STAT_FIELDS = (("K", "K"), ("V", "V"), ("H/HV", None), ("B", "B"), ("force_flush", "ff"), ("lower_bound", "lb"),
                ("l2norm", "l2"), ("strided", "env"), ("act", "act"), ("state", "state"), ("ring", "ring"),
                ("out", "out"), ("idx", "idx"))


@dataclass
class CaseStats:
    """How a set of drawn cases spreads: per field (K, V, H/HV, B, the flags, the dtypes) the
    count of each value; `production` counts K = V = 128 with a production head layout (H = HV
    >= 4, or 8 value heads per key head). str() is one line per field."""
    cases: int
    production: int
    counts: dict  # field -> {value: count}

    def __str__(self):
        def order(value):
            head = value.split("/")
            return (0, tuple(int(x) for x in head), "") if all(x.isdigit() for x in head) else (1, (), value)

        pct = 100.0 * self.production / self.cases if self.cases else 0.0
        lines = [f"{self.cases} cases, {self.production} with K = V = 128 and a production head layout ({pct:.1f}%)"]
        for field, _ in _STAT_FIELDS:
            values = self.counts.get(field, {})
            if not values:
                continue
            cells = [f"{v} {n} ({100.0 * n / self.cases:.1f}%)" for v, n in sorted(values.items(), key=lambda x: order(x[0]))]
            lines.append(f"  {field:<12} " + " | ".join(cells))
        return "\n".join(lines)


def case_stats(op=None, n=1000, seed=1, *, first=0, work_budget=None, envelope=None, restrict=None):
    """The distribution of cases first .. first+n-1 of operator `op`'s sample space of `seed`
    (inside `envelope` narrowed by `restrict` when given), from their config lines: nothing is
    materialized. op None: the default operator."""
    op = _operators.resolve(op)
    counts = {field: {} for field, _ in _STAT_FIELDS}
    production = 0
    for i in range(first, first + n):
        c = dict(item.split("=", 1) for item in config_line(i, seed, op, work_budget, envelope, restrict).split())
        for field, key in _STAT_FIELDS:
            if key is not None and key not in c:
                continue  # the operator has no words for it: its config line leaves it out
            if key is None:
                value = f"{c['H']}/{c['HV']}"
            elif key in ("ff", "l2", "env"):
                value = "on" if c[key] == "1" else "off"
            elif key == "lb":
                value = "off" if c[key] == "none" else "on"
            else:
                value = c[key]
            counts[field][value] = counts[field].get(value, 0) + 1
        H, HV = int(c["H"]), int(c["HV"])
        production += c["K"] == "128" and c["V"] == "128" and (H >= 4 if H == HV else HV == 8 * H)
    return CaseStats(n, production, counts)
