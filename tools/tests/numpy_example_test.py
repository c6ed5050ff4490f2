"""The README's numpy example (docs/examples/numpy_bf16_case.py) writes a bfloat16 call that
`kda-harness case` reads and passes; the bfloat16 tensors read back with ml_dtypes unchanged.
Exit 77 (ctest: skipped) where numpy or ml_dtypes is not installed.
Usage: numpy_example_test.py <kda-harness> <repository> <scratch folder>"""
import json
import os
import struct
import subprocess
import sys

try:
    import ml_dtypes
    import numpy as np
except ImportError as e:
    print(f"numpy_example_test: {e}: skipped")
    sys.exit(77)

harness, source, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
path = os.path.join(work, "call.safetensors")
subprocess.run([sys.executable, os.path.join(source, "docs", "examples", "numpy_bf16_case.py"), path], check=True)
r = subprocess.run([harness, "case", path], capture_output=True, text=True, timeout=120)
print(r.stdout, r.stderr)
if r.returncode != 0 or not r.stdout.splitlines()[-1].startswith("PASS "):
    sys.exit("kda-harness case did not pass the numpy example")
with open(path, "rb") as fh:
    data = fh.read()
(n,) = struct.unpack("<Q", data[:8])
header = json.loads(data[8:8 + n])
entry = header["mixed_qkv"]
start, end = entry["data_offsets"]
qkv = np.frombuffer(data[8 + n + start:8 + n + end], dtype=ml_dtypes.bfloat16).reshape(entry["shape"])
if entry["dtype"] != "BF16" or qkv.shape != (2, 64) or not np.all(np.isfinite(qkv.astype(np.float32))):
    sys.exit(f"mixed_qkv did not read back as bfloat16 [2, 64]: {entry}")
print("numpy example: written, replayed and read back")
