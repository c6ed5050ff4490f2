"""Writes one ReplaySSM decode call with bfloat16 activations and rings as a golden-format
safetensors file, using only numpy and ml_dtypes (numpy has no bfloat16 of its own), then
`kda-harness case FILE` replays it on the reference (no expected tensors: the harness
compares with its float64 model).

    python3 docs/examples/numpy_bf16_case.py call.safetensors
    build/tools/kda-harness case call.safetensors
"""
import json
import struct
import sys

import ml_dtypes
import numpy as np

BF16 = np.dtype(ml_dtypes.bfloat16)
SAFETENSORS_DTYPES = {BF16: "BF16", np.dtype(np.float16): "F16", np.dtype(np.float32): "F32",
                      np.dtype(np.int32): "I32", np.dtype(np.int64): "I64"}


def save_safetensors(path, tensors, metadata):
    """The safetensors layout: 8-byte little-endian header size, JSON header, raw bytes."""
    header, blobs, offset = {"__metadata__": metadata}, [], 0
    for name, array in tensors.items():
        array = np.ascontiguousarray(array)
        header[name] = {"dtype": SAFETENSORS_DTYPES[array.dtype], "shape": list(array.shape),
                        "data_offsets": [offset, offset + array.nbytes]}
        blobs.append(array.tobytes())
        offset += array.nbytes
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def main(path):
    rng = np.random.default_rng(7)
    B, H, HV, K, V, L, slots = 2, 1, 2, 16, 16, 4, 3

    def normal(shape, scale, dtype):
        return (rng.standard_normal(shape) * scale).astype(dtype)

    tensors = {
        "mixed_qkv": normal((B, 2 * H * K + HV * V), 0.5, BF16),
        "a": normal((B, HV * K), 0.5, BF16),
        "b": normal((B, HV), 0.5, BF16),
        "A_log": normal((HV,), 0.2, np.float32),
        "dt_bias": normal((HV * K,), 0.1, np.float32),
        "initial_state": normal((slots, HV, V, K), 0.05, np.float32),
        "d_cache": normal((slots, HV, L, V), 0.05, BF16),
        "k_cache": normal((slots, H, L, K), 0.25, BF16),
        "g_cache": -np.abs(normal((slots, HV, L, K), 0.1, np.float32)),  # log-decays are <= 0
        "out": np.zeros((B, 1, HV, V), BF16),
        "ssm_state_indices": np.array([2, 0], np.int32),
        "write_pos": np.array([1, 0], np.int32),  # row 0 replays one ring record, row 1 none
    }
    save_safetensors(path, tensors, {"kda.scale": str(K ** -0.5), "kda.use_qk_l2norm_in_kernel": "true"})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "call.safetensors")
