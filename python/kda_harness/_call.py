"""One call of an operator as the C side takes it (plugin.h's kda_call): the operator's name,
the tensor arguments by their contract.md names, and the three scalars."""
import ctypes

from . import _abi, _dlpack, _operators

OP = _operators.DEFAULT
SCALAR_NAMES = ("scale", "use_qk_l2norm_in_kernel", "lower_bound")


class Call:
    """Builds a KdaCall of operator `op` over the caller's tensors (name -> tensor; None:
    absent); keeps everything it points into alive."""

    def __init__(self, tensors, scale, use_qk_l2norm_in_kernel=False, lower_bound=None, stream=None, op=OP):
        self.borrowed = _dlpack.Borrowed()
        keep = self.borrowed.keep
        names = [n for n, t in tensors.items() if t is not None]
        dls = [_dlpack.to_dltensor(tensors[n], keep) for n in names]
        self.dltensors = dict(zip(names, dls))
        tensor_names = keep((ctypes.c_char_p * len(names))(*(n.encode() for n in names)))
        pointers = keep((ctypes.POINTER(_abi.DLTensor) * len(names))(*(ctypes.pointer(t) for t in dls)))
        keep(dls)
        values = [1.0 if scale is None else float(scale), 1.0 if use_qk_l2norm_in_kernel else 0.0,
                  0.0 if lower_bound is None else float(lower_bound)]
        present = [1, 1, 0 if lower_bound is None else 1]
        self.call = _abi.KdaCall(
            op=keep(op.encode()), num_tensors=len(names), tensor_names=tensor_names, tensors=pointers,
            num_scalars=3, scalar_names=keep((ctypes.c_char_p * 3)(*(n.encode() for n in SCALAR_NAMES))),
            scalar_values=keep((ctypes.c_double * 3)(*values)), scalar_present=keep((ctypes.c_uint8 * 3)(*present)),
            stream=stream)

    def pointer(self):
        return ctypes.byref(self.call)


def read_call(call):
    """The tensors (name -> DLTensor) and scalars (name -> value) of a KdaCall the harness lends."""
    tensors = {call.tensor_names[i].decode(): call.tensors[i].contents
               for i in range(call.num_tensors) if call.tensors[i]}  # an absent force_flush is NULL
    scalars = {"scale": 1.0, "use_qk_l2norm_in_kernel": False, "lower_bound": None}
    for i in range(call.num_scalars):
        name = call.scalar_names[i].decode()
        present = not call.scalar_present or call.scalar_present[i]
        value = call.scalar_values[i]
        if name == "use_qk_l2norm_in_kernel":
            scalars[name] = bool(present and value != 0.0)
        else:
            scalars[name] = float(value) if present else None
    return tensors, scalars
