"""The operators of the harness's table, as its C library lists them (kda_operators,
kda_operator_tensors, kda_operator_scalars), and a call's keyword arguments checked against
one: each operator takes its own tensors (the plain packed decode has no rings, write_pos or
force_flush) and its own scalars (gdn_replayssm adds nk and its ring-variant flags)."""
import functools
import inspect
import re

from . import _lib


@functools.lru_cache(maxsize=None)
def names():
    """Every operator, the default first (the C library's table: fixed for the process, asked once)."""
    return tuple(_lib.lib().kda_operators().decode().split(","))


def default():
    """The default operator: the first of the C library's table (the harness states it once)."""
    return names()[0]


def resolve(op):
    """`op`, or the default operator where it is None (or empty)."""
    return op or default()


def of_line(line):
    """The operator a case line names (its op= key: the lines of an operator other than the
    default name it), or None."""
    for item in (line or "").partition(" | ")[0].split():
        if item.startswith("op="):
            return item[3:]
    return None


def _listed(op, lister):
    """(name, optional) of each name the C library lists for `op` ('?' marks an optional one)."""
    listed = lister(op.encode()) if isinstance(op, str) else None
    if listed is None:
        raise ValueError(f"unknown operator {op!r} (known: {', '.join(names())})")
    return tuple((n.rstrip("?"), n.endswith("?")) for n in listed.decode().split(",") if n)


@functools.lru_cache(maxsize=None)
def _tensors(op):
    return _listed(op, _lib.lib().kda_operator_tensors)


@functools.lru_cache(maxsize=None)
def _scalars(op):
    return _listed(op, _lib.lib().kda_operator_scalars)


def tensor_names(op):
    """The operator's tensor arguments in its signature's order (ValueError for an unknown op)."""
    return tuple(name for name, _ in _tensors(op))


def scalar_names(op):
    """The operator's scalar arguments in its signature's order (ValueError for an unknown op)."""
    return tuple(name for name, _ in _scalars(op))


def error_ids(op=None):
    """The error catalog ids (docs/errors.md) the operator's contract and runtime checks raise, in
    catalog order; the default operator's where op is None (ValueError for an unknown op)."""
    return tuple(name for name, _ in _listed(resolve(op), _lib.lib().kda_operator_errors))


def optional_scalars(op):
    """Those of its scalars a call may leave absent (None: lower_bound)."""
    return tuple(name for name, optional in _scalars(op) if optional)


def call_arguments(op, given, caller):
    """The tensors and the scalars of `given` (keyword -> value) as two dicts, checked against
    what `op` takes as Python checks a signature: TypeError for a name it does not take or a
    required tensor left out."""
    tensors, scalars = tensor_names(op), scalar_names(op)
    extra = [k for k in given if k not in tensors and k not in scalars]
    if extra:
        raise TypeError(f"{caller}() got unexpected keyword argument(s) {', '.join(map(repr, extra))} for {op}")
    missing = [name for name, optional in _tensors(op) if not optional and name not in given]
    if missing:
        raise TypeError(f"{caller}() missing keyword argument(s) {', '.join(map(repr, missing))} of {op}")
    return ({k: v for k, v in given.items() if k in tensors}, {k: v for k, v in given.items() if k in scalars})


def arguments(op):
    """Every argument a step of `op` is called with, by keyword: its tensors, then its scalars."""
    return tensor_names(op) + scalar_names(op)


def fitting(fn):
    """The operators whose arguments fn's signature takes, every one by keyword and nothing else
    required; None where the signature cannot tell (none, or **kwargs)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    named = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    required = {p.name for p in params if p.default is p.empty and p.kind is not p.VAR_POSITIONAL}
    return [op for op in names() if named >= set(arguments(op)) and required <= set(arguments(op))]


def mismatch_hint(op, error):
    """For a TypeError a step raised over its keyword arguments (an argument of `op` it does not
    take, or one of another operator's it misses): which operator it was called as and which
    option names another; "" for any other error."""
    found = re.search(r"(unexpected keyword argument|missing \d+ required keyword-only argument[s]?:?) '(\w+)'", str(error))
    if not isinstance(error, TypeError) or not found:
        return ""
    others = [o for o in names() if o != op]
    return (f" (the step was called with {op}'s arguments; a step of another operator ({', '.join(others)}) needs "
            f"op= naming it (pytest: --kda-op), or a kda_op attribute)")
