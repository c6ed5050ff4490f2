"""Finds and loads the harness's C library (libkda_harness_capi.so) and declares its
functions. Looked for, in order: $KDA_HARNESS_LIBRARY; lib/ under this package's folder (the
wheel installs it there, paths.py); build/capi/ of the source tree this package sits in (a
CMake build); the pip-installed package's lib/ (for this source tree imported ahead of the
installed copy)."""
import ctypes
import functools
import importlib.metadata
import os
from ctypes import POINTER, c_char_p, c_double, c_int32, c_int64, c_size_t, c_uint64, c_void_p
from pathlib import Path

from . import _abi

# The library's name, also paths.py's (not imported from there: `python -m kda_harness.paths`
# must find that module not yet imported by the package).
LIBRARY_NAME = "libkda_harness_capi.so"

EXPECTED_VERSION = 9


def _candidates():
    env = os.environ.get("KDA_HARNESS_LIBRARY")
    if env:
        yield Path(env)
        return
    here = Path(__file__).resolve().parent
    yield here / "lib" / LIBRARY_NAME
    for parent in here.parents:
        yield parent / "build" / "capi" / LIBRARY_NAME
    try:
        yield Path(importlib.metadata.distribution("kda-harness").locate_file(f"kda_harness/lib/{LIBRARY_NAME}"))
    except importlib.metadata.PackageNotFoundError:
        pass


def _declare(lib):
    err, dims = POINTER(_abi.KdaError), POINTER(_abi.KdaDims)
    call, env = POINTER(_abi.KdaCall), POINTER(_abi.KdaEnvelope)
    sig = {
        "kda_capi_version": (c_int32, []),
        "kda_operators": (c_char_p, []),
        "kda_operator_tensors": (c_char_p, [c_char_p]),
        "kda_operator_scalars": (c_char_p, [c_char_p]),
        "kda_operator_errors": (c_char_p, [c_char_p]),
        "kda_validate": (c_int32, [call, c_int32, c_int32, dims, err]),
        "kda_reference_step": (c_int32, [call, c_int32, dims, err]),
        "kda_cases": (c_int32, [c_char_p, c_uint64, c_int64, c_double, env, c_char_p, c_size_t, err]),
        "kda_case_materialize": (c_int32, [c_char_p, c_char_p, POINTER(c_void_p), err]),
        "kda_case_config": (c_char_p, [c_void_p]),
        "kda_case_call": (call, [c_void_p]),
        "kda_case_free": (None, [c_void_p]),
        "kda_check_plugin": (c_int32, [POINTER(_abi.KdaPlugin), POINTER(_abi.KdaCheckOptions), c_char_p, c_size_t,
                                       POINTER(c_size_t), err]),
        "kda_check_case_line": (c_int32, [POINTER(_abi.KdaPlugin), POINTER(_abi.KdaCheckOptions), c_char_p, c_size_t,
                                          POINTER(c_size_t), err]),
        "kda_time_plugin": (c_int32, [POINTER(_abi.KdaPlugin), c_char_p, c_size_t, POINTER(c_size_t), err]),
        "kda_shrink_case": (c_int32, [POINTER(_abi.KdaPlugin), POINTER(_abi.KdaCheckOptions), c_char_p, c_size_t,
                                      POINTER(c_size_t), err]),
        "kda_check_suites": (c_char_p, []),
        "kda_defaults": (c_char_p, []),
        "kda_check_suites_valid": (c_int32, [c_char_p, err]),
        "kda_plugin_check": (c_int32, [POINTER(_abi.KdaPlugin), c_char_p, err]),
    }
    for name, (restype, argtypes) in sig.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib


@functools.lru_cache(maxsize=1)
def lib():
    tried = []
    for path in _candidates():
        tried.append(str(path))
        if path.is_file():
            loaded = ctypes.CDLL(str(path))
            loaded.kda_capi_version.restype, loaded.kda_capi_version.argtypes = c_int32, []
            version = loaded.kda_capi_version()  # before the other declarations: an older library lacks some
            if version != EXPECTED_VERSION:
                raise ImportError(f"{path}: C API version {version}, this package needs {EXPECTED_VERSION}")
            return _declare(loaded)
    raise ImportError(
        "kda_harness: the C library was not found (tried: " + ", ".join(tried) + "). Install the package with "
        "`pip install ./python`, or build it with CMake (target kda_harness_capi) and set KDA_HARNESS_LIBRARY.")
