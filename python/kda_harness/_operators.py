"""The operators of the harness's table, as its C library lists them (kda_operators,
kda_operator_tensors), and a call's keyword arguments checked against one: each operator
takes its own tensors (the plain packed decode has no rings, write_pos or force_flush)."""
import functools

from . import _lib

DEFAULT = "kda_replayssm"


def names():
    """Every operator, the default first."""
    return tuple(_lib.lib().kda_operators().decode().split(","))


@functools.lru_cache(maxsize=None)
def _tensors(op):
    listed = _lib.lib().kda_operator_tensors(op.encode()) if isinstance(op, str) else None
    if listed is None:
        raise ValueError(f"unknown operator {op!r} (known: {', '.join(names())})")
    return tuple((n.rstrip("?"), n.endswith("?")) for n in listed.decode().split(","))


def tensor_names(op):
    """The operator's tensor arguments in its signature's order (ValueError for an unknown op)."""
    return tuple(name for name, _ in _tensors(op))


def call_tensors(op, given, caller):
    """The tensors of `given` (keyword -> tensor) that `op` takes, checked as Python checks a
    signature: TypeError for a name it does not take or a required one left out."""
    known = tensor_names(op)
    extra = [k for k in given if k not in known]
    if extra:
        raise TypeError(f"{caller}() got unexpected keyword argument(s) {', '.join(map(repr, extra))} for {op}")
    missing = [name for name, optional in _tensors(op) if not optional and name not in given]
    if missing:
        raise TypeError(f"{caller}() missing keyword argument(s) {', '.join(map(repr, missing))} of {op}")
    return dict(given)
