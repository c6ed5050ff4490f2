"""ctypes mirrors of the C structures the package exchanges with the harness library:
DLPack's DLTensor and the plugin ABI (include/kda_harness/plugin.h), the C API's error,
dims and check options (capi/kda_capi.h). Field order and types follow the headers."""
import ctypes
from ctypes import POINTER, c_char, c_char_p, c_double, c_int32, c_int64, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p

KDA_PLUGIN_ABI_VERSION = 3

# How a step treats runtime-invalid rows (plugin.h's KDA_INVALID_ROWS_*).
INVALID_ROWS = {"none": 0, "raise": 1}
# The ring variants a step serves (plugin.h's KDA_RING_*).
RING_MODES = {"linear": 1 << 0, "circular": 1 << 1, "prefix_gates": 1 << 2, "predecayed_keys": 1 << 3}

DT_FLOAT32, DT_BFLOAT16, DT_FLOAT16, DT_INT32, DT_INT64 = 1, 2, 4, 8, 16
DTYPE_BITS = {"float32": DT_FLOAT32, "bfloat16": DT_BFLOAT16, "float16": DT_FLOAT16, "int32": DT_INT32, "int64": DT_INT64}

PROFILES = {"helion": 0, "triton": 1}

KDL_CPU, KDL_CUDA = 1, 2

OK, CONTRACT_ERROR, BAD_ARGUMENT, INTERNAL_ERROR, BUFFER_TOO_SMALL = 0, 1, 2, 3, 4


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", c_void_p),
        ("device", DLDevice),
        ("ndim", c_int32),
        ("dtype", DLDataType),
        ("shape", POINTER(c_int64)),
        ("strides", POINTER(c_int64)),
        ("byte_offset", c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p), ("deleter", c_void_p)]


class KdaEnvelope(ctypes.Structure):
    _fields_ = [
        ("act_dtypes", c_uint32),
        ("state_dtypes", c_uint32),
        ("ring_dtypes", c_uint32),
        ("out_dtypes", c_uint32),
        ("index_dtypes", c_uint32),
        ("k_min", c_int64),
        ("k_max", c_int64),
        ("v_min", c_int64),
        ("v_max", c_int64),
        ("l_max", c_int64),
        ("strided", c_int32),
        ("device_type", c_int32),
    ]


class KdaCall(ctypes.Structure):
    _fields_ = [
        ("op", c_char_p),
        ("num_tensors", c_int32),
        ("tensor_names", POINTER(c_char_p)),
        ("tensors", POINTER(POINTER(DLTensor))),
        ("num_scalars", c_int32),
        ("scalar_names", POINTER(c_char_p)),
        ("scalar_values", POINTER(c_double)),
        ("scalar_present", POINTER(c_uint8)),
        ("stream", c_void_p),
    ]


STEP_FN = ctypes.CFUNCTYPE(c_int32, c_void_p, POINTER(KdaCall))
# last_error returns a pointer the callee keeps alive (a c_char_p result would dangle).
LAST_ERROR_FN = ctypes.CFUNCTYPE(c_void_p, c_void_p)


class KdaPlugin(ctypes.Structure):
    _fields_ = [
        ("abi_version", c_uint32),
        ("name", c_char_p),
        ("op", c_char_p),
        ("profile", c_int32),
        ("envelope", KdaEnvelope),
        ("state", c_void_p),
        ("step", STEP_FN),
        ("last_error", LAST_ERROR_FN),
        ("invalid_rows", c_int32),
        ("ring_modes", c_uint32),
    ]


class KdaError(ctypes.Structure):
    _fields_ = [("id", c_char * 32), ("message", c_char * 4096)]


class KdaDims(ctypes.Structure):
    _fields_ = [(name, c_int64) for name in ("B", "H", "HV", "K", "V", "L", "slots")]


def checked_seed(seed):
    """seed as the C library's uint64 takes it; ctypes would wrap -1 or 2**64 silently into
    another seed, so anything else is a ValueError."""
    if not (isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 2**64):
        raise ValueError(f"seed must be an integer in 0 .. 2**64 - 1, not {seed!r}")
    return seed


class KdaCheckOptions(ctypes.Structure):
    _fields_ = [
        ("suites", c_char_p),
        ("seed", c_uint64),
        ("first", c_int64),
        ("count", c_int64),
        ("work_budget", c_double),
        ("profile", c_int32),
        ("config", c_char_p),
        ("restriction", ctypes.POINTER(KdaEnvelope)),
        ("probe_invalid_rows", c_int32),
        ("model", c_char_p),
        ("pin", c_char_p),
    ]
