"""`kda-harness validate|errors --op kda_triton_replayssm` as a user meets them: the spec's
pre-decay call (circular-replay.md, "How SGLang calls these modes": H = HV = 4, K = V = 32,
bfloat16 activations and out, float32 state and rings, L = 4, lower_bound -5, nk 1, every ring
flag on) validates; each check where the wrapper's KDA path parts from its GDN path (K17-K19,
G22) and each ring-variant check (G9, G28, P1-P9) prints its message byte for byte, rendered
from the catalog's template with the sizes this file put in the call, in the wrapper's order;
the operator's catalog listing names them; `--backend cuda` refuses the operator.

Registered by tools/tests/CMakeLists.txt like cli_test.py (one ctest entry per test).
"""
import json
import os
import sys
import unittest

import cli_test  # noqa: E402
from cli_gdn_test import catalog, edit, render, tensor, tup
from cli_test import EXAMPLES, run

OP = ["--op", "kda_triton_replayssm"]
# docs/examples/validate_kda_triton_call.json's sizes.
B, H, HV, K, V, L, SLOTS = 2, 4, 4, 32, 32, 4, 3


def valid_call():
    with open(os.path.join(EXAMPLES, "validate_kda_triton_call.json")) as fh:
        return json.load(fh)


def all_f16(call):
    for name in ("mixed_qkv", "a", "b", "A_log", "dt_bias", "d_cache", "k_cache"):
        call[name]["dtype"] = "float16"


# (check, mutation of the valid call, the id it raises, the template's values)
TRIGGERS = [
    ("G9", edit(cache_base=None), "G9", {}),
    ("K17", edit(a__shape=[B, HV * K]), "K17", {"(B, HV, K)": tup(B, HV, K), "tuple(a.shape)": tup(B, HV * K)}),
    ("K18", edit(dt_bias__shape=[HV * K]), "K18", {"(HV, K)": tup(HV, K), "tuple(dt_bias.shape)": tup(HV * K)}),
    ("K19", edit(a__strides=[HV * K + 8, K, 1]), "K19", {}),
    ("G22", edit(g_cache__shape=[SLOTS, HV, L]), "G22",
     {"(slots, HV, L)": tup(SLOTS, HV, L, K), "tuple(g_cache.shape)": tup(SLOTS, HV, L)}),
    ("G28", edit(cache_base=tensor([B + 1])), "G28", {"(B,)": tup(B), "tuple(cache_base.shape)": tup(B + 1)}),
    ("P1", edit(prefix_gate_cache=False), "G29", {}),
    ("P2", edit(mixed_qkv__shape=[B, 2 * 2 * K + HV * V], k_cache__shape=[SLOTS, 2, L, K]), "P2", {}),
    ("P3", edit(initial_state__dtype="bfloat16"), "P3", {}),
    ("P4", edit(k_cache__dtype="bfloat16"), "P4", {}),
    ("P5", edit(d_cache__dtype="float16", k_cache__dtype="float16"), "P5", {}),
    ("P6", edit(d_cache__shape=[SLOTS, HV, 17, V], k_cache__shape=[SLOTS, HV, 17, K], g_cache__shape=[SLOTS, HV, 17, K]),
     "P6", {}),
    ("P7", edit(lower_bound=None), "P7", {}),
    ("P8", edit(lower_bound=-27.0), "P8", {}),
    ("P9", lambda call: (all_f16(call), call.update(nk=1)), "P9", {}),
]


def validate(call, *flags):
    return run(["validate", *OP, *flags, "-"], input_text=json.dumps(call))


class KdaTritonValidate(unittest.TestCase):
    def test_kda_triton_example_call_is_valid(self):
        r = run(["validate", *OP, os.path.join(EXAMPLES, "validate_kda_triton_call.json")])
        self.assertEqual((r.returncode, r.stdout), (0, f"ok B={B} H={H} HV={HV} K={K} V={V} L={L} slots={SLOTS}\n"),
                         r.stderr)

    def test_kda_triton_each_check_prints_its_message_byte_for_byte(self):
        entries = catalog()
        for check, mutate, raised, values in TRIGGERS:
            with self.subTest(check=check):
                call = valid_call()
                mutate(call)
                r = validate(call)
                entry = entries[raised]
                expected = f"{raised}\n{render(entry['message'], values)}\nfix: {entry['fix']}\n"
                self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
                self.assertEqual(r.stdout[:len(expected)], expected)

    def test_kda_triton_edges_of_the_pre_decay_envelope_are_accepted(self):
        # (L - 1) |lower_bound| = 80 passes; float16 activations with float32 rings pass P9;
        # L = 2 and L = 16 pass P6; the GDN-shaped flags off give the plain KDA path.
        for name, mutate in (("(L-1)|lb| = 80", edit(lower_bound=-80.0 / 3.0)),
                             ("f16 activations, f32 rings", all_f16_f32_rings),
                             ("L = 2", with_length(2)), ("L = 16", with_length(16)),
                             ("no ring flag", edit(circular_replay=False, prefix_gate_cache=False,
                                                   predecayed_k_cache=False, cache_base=None))):
            with self.subTest(edge=name):
                call = valid_call()
                mutate(call)
                r = validate(call)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_kda_triton_errors_lists_the_variants_checks(self):
        r = run(["errors", *OP])
        self.assertEqual(r.returncode, 0, r.stderr)
        listed = r.stdout
        for check in ("K17", "K18", "K19", "G9", "G22", "G28", "G29", *[f"P{n}" for n in range(2, 10)]):
            self.assertIn(check, listed)
        # The GDN path's own gate checks are not this operator's.
        self.assertNotIn("GDN `a` must have shape", listed)

    def test_kda_triton_device_mix_names_this_operator(self):
        """X-GDN-DEVICE, the wrapper's device extension on either path, names the operator raising it."""
        call = valid_call()
        call["d_cache"]["device"] = "cuda:1"
        r = validate(call)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(r.stdout.splitlines()[:2], ["X-GDN-DEVICE", render(catalog()["X-GDN-DEVICE"]["message"],
                                                                             {"operator": "kda_triton_replayssm"})])
        self.assertNotIn("gdn_replayssm", r.stdout.splitlines()[1])

    def test_kda_triton_cuda_backend_refuses_the_operator(self):
        r = run(["case", "B=2 H=2 HV=2 K=32 V=16 L=4 slots=3 a3d=1 dt2d=1", *OP, "--backend", "cuda"])
        self.assertNotEqual(r.returncode, 0)
        if "this build has no CUDA kernel" in r.stdout + r.stderr:
            self.skipTest("this build has no CUDA kernel (KDA_ENABLE_CUDA=OFF): it refuses every operator alike")
        self.assertIn("kda_triton_replayssm", r.stdout + r.stderr)


def all_f16_f32_rings(call):
    all_f16(call)
    call["d_cache"]["dtype"] = call["k_cache"]["dtype"] = "float32"


def with_length(n):
    return edit(d_cache__shape=[SLOTS, HV, n, V], k_cache__shape=[SLOTS, HV, n, K], g_cache__shape=[SLOTS, HV, n, K],
                lower_bound=-80.0 / (n - 1) if n > 1 else -5.0)


if __name__ == "__main__":
    cli_test.main(sys.modules[__name__])
