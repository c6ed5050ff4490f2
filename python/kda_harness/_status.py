"""C status codes -> Python exceptions."""
from . import _abi
from .errors import ContractError, HarnessError


def raise_for(status, err):
    if status == _abi.OK:
        return
    message = err.message.decode("utf-8", "replace")
    if status == _abi.CONTRACT_ERROR:
        raise ContractError(message, err.id.decode())
    if status == _abi.BAD_ARGUMENT:
        raise ValueError(message)
    raise HarnessError(message or f"C API status {status}")
