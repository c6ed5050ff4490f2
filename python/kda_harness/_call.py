"""One call of an operator as the C side takes it (plugin.h's kda_call): the operator's name,
the tensor arguments by their contract.md names, and its scalars by name (the operator's
list, from the C library), each as a double."""
import ctypes

from . import _abi, _dlpack, _operators

# How Python spells a scalar the C side passes as a double: flags as bool, tile counts as int,
# the rest as float (per argument name, whatever the operator).
_FLAGS = frozenset({"use_qk_l2norm_in_kernel", "circular_replay", "prefix_gate_cache", "predecayed_k_cache",
                    "use_gate_in_kernel", "use_beta_sigmoid_in_kernel", "allow_neg_eigval", "state_v_first"})
_COUNTS = frozenset({"nk"})


def _encode(name, value):
    """(value as a double, present): None leaves the scalar absent."""
    if value is None:
        return 0.0, 0
    if name in _FLAGS:
        return (1.0 if value else 0.0), 1
    return float(value), 1


def _decode(name, value):
    if name in _FLAGS:
        return value != 0.0
    if name in _COUNTS:
        return int(value)
    return float(value)


class Call:
    """Builds a KdaCall of operator `op` over the caller's tensors (name -> tensor; None:
    absent) and scalars (name -> value, among the operator's; None or left out: absent, which
    the C side reads as the argument's default, scale's 1.0 included); keeps everything it
    points into alive."""

    def __init__(self, tensors, scalars, stream=None, op=None):  # op None: the default operator
        op = _operators.resolve(op)
        self.borrowed = _dlpack.Borrowed()
        keep = self.borrowed.keep
        names = [n for n, t in tensors.items() if t is not None]
        dls = [_dlpack.to_dltensor(tensors[n], keep) for n in names]
        self.dltensors = dict(zip(names, dls))
        tensor_names = keep((ctypes.c_char_p * len(names))(*(n.encode() for n in names)))
        pointers = keep((ctypes.POINTER(_abi.DLTensor) * len(names))(*(ctypes.pointer(t) for t in dls)))
        keep(dls)
        optional = _operators.optional_scalars(op)
        # An absent scalar that must be present (scale=None) is left out: the C side's default.
        given = [(n, *_encode(n, v)) for n, v in scalars.items() if v is not None or n in optional]
        n = len(given)
        self.call = _abi.KdaCall(
            op=keep(op.encode()), num_tensors=len(names), tensor_names=tensor_names, tensors=pointers,
            num_scalars=n, scalar_names=keep((ctypes.c_char_p * n)(*(g[0].encode() for g in given))),
            scalar_values=keep((ctypes.c_double * n)(*(g[1] for g in given))),
            scalar_present=keep((ctypes.c_uint8 * n)(*(g[2] for g in given))), stream=stream)

    def pointer(self):
        return ctypes.byref(self.call)


def read_call(call):
    """The tensors (name -> DLTensor) and scalars (name -> value) of a KdaCall the harness lends:
    every scalar of its operator, an absent one None."""
    tensors = {call.tensor_names[i].decode(): call.tensors[i].contents
               for i in range(call.num_tensors) if call.tensors[i]}  # an absent force_flush is NULL
    scalars = {name: None for name in _operators.optional_scalars(call.op.decode())} if call.op else {}
    for i in range(call.num_scalars):
        name = call.scalar_names[i].decode()
        present = not call.scalar_present or call.scalar_present[i]
        scalars[name] = _decode(name, call.scalar_values[i]) if present else None
    return tensors, scalars
