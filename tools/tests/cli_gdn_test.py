"""`kda-harness validate|errors|case --op gdn_replayssm` as a user meets them: every documented
check of the GDN wrapper (spec gdn-replayssm.md, G1-G32) raised from a call's JSON metadata
prints that check's message byte for byte, rendered here from the catalog's template
(contract/error_catalog.json) with the sizes this file put in the call; the strided-gate
extension the wrapper lacks; the operator's catalog listing; one case against the truth.

Registered by tools/tests/CMakeLists.txt like cli_test.py (one ctest entry per test).
"""
import json
import os
import re
import sys
import unittest

import cli_test  # noqa: E402
from cli_test import EXAMPLES, SOURCE, run

OP = ["--op", "gdn_replayssm"]
# docs/examples/validate_gdn_call.json's sizes.
B, H, HV, K, V, L, SLOTS = 3, 2, 4, 32, 32, 4, 5


def catalog():
    with open(os.path.join(SOURCE, "contract", "error_catalog.json"), encoding="utf-8") as f:
        return {e["id"]: e for e in json.load(f)["entries"]}


def tup(*xs):
    """Python's tuple repr, as the wrapper's f-strings print shapes."""
    return "(" + ", ".join(map(str, xs)) + ("," if len(xs) == 1 else "") + ")"


def render(template, values):
    """The catalog's f-string template with each {placeholder} replaced by values[placeholder];
    a placeholder with no value fails the test rather than printing itself."""
    def one(m):
        if m.group(1) not in values:
            raise KeyError(f"no value for {{{m.group(1)}}} in {template!r}")
        return str(values[m.group(1)])
    return re.sub(r"\{([^{}]+)\}", one, template)


def valid_call():
    with open(os.path.join(EXAMPLES, "validate_gdn_call.json")) as fh:
        return json.load(fh)


def tensor(shape, dtype="int32", strides=None):
    return {"shape": shape, "strides": strides, "dtype": dtype, "device": "cuda:0"}


def edit(**changes):
    """A mutation: top-level keys replaced; "name__field" keys edit one field of a tensor."""
    def apply(call):
        for key, value in changes.items():
            if "__" in key:
                name, field = key.split("__")
                call[name][field] = value
            else:
                call[key] = value
    return apply


# One trigger per documented check, in the wrapper's order: the mutation of the valid call,
# the catalog id it raises (the KDA entry where the text is shared) and the placeholder values.
TRIGGERS = [
    ("G1", edit(mixed_qkv__shape=[B, 1, 256]), "G1", {"mixed_qkv.ndim": 3}),
    ("G2", edit(mixed_qkv__strides=[512, 2]), "V2", {}),
    ("G3", edit(b__shape=[B * HV]), "G3", {"b.ndim": 1}),
    ("G4", edit(A_log__shape=[HV, 1]), "G4", {}),
    ("G5", edit(initial_state__shape=[SLOTS, HV, V * K]), "G5", {"initial_state.ndim": 3}),
    ("G6", edit(out__strides=[2 * HV * V, 2 * HV * V, 2 * V, 2]), "V8", {}),
    ("G7", edit(write_pos__dtype="int64"), "G7", {}),
    ("G8", edit(force_flush=tensor([B], "int64")), "G8", {}),
    ("G9", edit(circular_replay=True), "G9", {}),
    ("G10", edit(initial_state__strides=[HV * V * (K + 1), V * (K + 1), K + 1, 1]), "G10", {}),
    ("G11", edit(mixed_qkv__shape=[B, HV * V]), "V20", {"qkv_dim": HV * V, "HV": HV, "V": V}),
    ("G12", edit(mixed_qkv__shape=[B, HV * V + 2 * (H * K + 1)]), "G12",
     {"qkv_dim": HV * V + 2 * (H * K + 1), "HV": HV, "V": V, "K": K}),
    ("G13", edit(mixed_qkv__shape=[B, 2 * (HV + 1) * K + HV * V]), "V22", {"H": HV + 1, "HV": HV}),
    ("G14", edit(b__shape=[B + 1, HV]), "G14", {"(B, HV)": tup(B, HV)}),
    ("G15", edit(A_log__shape=[HV + 1]), "G15", {"(HV,)": tup(HV)}),
    ("G16", edit(d_cache__shape=[SLOTS, HV, 0, V]), "R4", {}),
    ("G17", edit(a__shape=[B, HV * K]), "G17", {"(B, HV)": tup(B, HV), "tuple(a.shape)": tup(B, HV * K)}),
    ("G18", edit(dt_bias__shape=[HV, K]), "G18", {"(HV,)": tup(HV), "tuple(dt_bias.shape)": tup(HV, K)}),
    ("G19", edit(k_cache__strides=[2 * H * L * K, 2 * L * K, 2 * K, 2]), "G19", {}),
    ("G20", edit(d_cache__shape=[SLOTS, HV, L, V + 1]), "G20",
     {"(slots, HV, L, V)": tup(SLOTS, HV, L, V), "tuple(d_cache.shape)": tup(SLOTS, HV, L, V + 1)}),
    ("G21", edit(k_cache__shape=[SLOTS, HV, L, K]), "G21",
     {"(slots, H, L, K)": tup(SLOTS, H, L, K), "tuple(k_cache.shape)": tup(SLOTS, HV, L, K)}),
    ("G22", edit(g_cache__shape=[SLOTS, HV, L, K]), "G22",
     {"(slots, HV, L)": tup(SLOTS, HV, L), "tuple(g_cache.shape)": tup(SLOTS, HV, L, K)}),
    ("G23", edit(g_cache__dtype="bfloat16"), "G23", {"g_cache.dtype": "torch.bfloat16"}),
    ("G24", edit(out__shape=[B, HV, V]), "G24", {"(B, 1, HV, V)": tup(B, 1, HV, V), "tuple(out.shape)": tup(B, HV, V)}),
    ("G25", edit(ssm_state_indices__dtype="int64"), "G25", {}),
    ("G26", edit(write_pos__shape=[B + 1]), "G26",
     {"B": B, "write_pos.shape[0]": B + 1, "ssm_state_indices.shape[0]": B}),
    ("G27", edit(force_flush=tensor([B + 1])), "G27", {"B": B}),
    ("G28", edit(circular_replay=True, cache_base=tensor([B + 1])), "G28",
     {"(B,)": tup(B), "tuple(cache_base.shape)": tup(B + 1)}),
    ("G29", edit(predecayed_k_cache=True), "G29", {}),
    # G30 cannot fire (BK = next_power_of_2(K) >= K): the catalog says so, checked below.
    ("G31", edit(nk=3), "G31", {"nk": 3, "BK": K}),
    ("G32", edit(nk=4), "G32", {"BKT": K // 4, "nk": 4, "BK": K}),
]


def validate(call, *flags):
    return run(["validate", *OP, *flags, "-"], input_text=json.dumps(call))


class GdnValidate(unittest.TestCase):
    def test_gdn_example_call_is_valid(self):
        r = run(["validate", *OP, os.path.join(EXAMPLES, "validate_gdn_call.json")])
        self.assertEqual((r.returncode, r.stdout), (0, f"ok B={B} H={H} HV={HV} K={K} V={V} L={L} slots={SLOTS}\n"),
                         r.stderr)

    def test_gdn_each_documented_check_prints_its_message_byte_for_byte(self):
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
                doc = json.loads(validate(call, "--json").stdout)
                self.assertEqual((doc["id"], doc["message"]), (raised, render(entry["message"], values)))

    def test_gdn_every_documented_check_has_a_trigger_here(self):
        # The catalog's documented entries of this operator, less the one it marks as
        # unreachable: a new G check without a trigger above fails this test.
        lines = run(["errors"] + OP).stdout.split("\n")  # "ID\tdocumented\tMESSAGE" per entry it raises
        documented = {line.split("\t")[0] for line in lines if "\tdocumented\t" in line}
        self.assertIn("unreachable", catalog()["G30"]["tags"])
        self.assertEqual({raised for _, _, raised, _ in TRIGGERS}, documented - {"G30"})
        self.assertEqual([c for c, _, _, _ in TRIGGERS], [f"G{n}" for n in range(1, 33) if n != 30])

    def test_gdn_strided_gate_names_the_extension(self):
        message = catalog()["X-GDN-GATE-STRIDES"]["message"]
        for name, strides, shown in (("a", [2 * HV, 2], f"a.strides = {tup(2 * HV, 2)}"),
                                     ("a", [1, 0], f"a.strides = {tup(1, 0)}"),
                                     ("dt_bias", [2], f"dt_bias.strides = {tup(2)}")):
            with self.subTest(tensor=name, strides=strides):
                call = valid_call()
                call[name]["strides"] = strides
                r = validate(call)
                self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
                self.assertEqual(r.stdout.splitlines()[:2], ["X-GDN-GATE-STRIDES", message])
                self.assertIn(shown, r.stdout)
        # Only the last stride of `a` must be 1: a padded row stride passes.
        call = valid_call()
        call["a"]["strides"] = [2 * HV, 1]
        self.assertEqual(validate(call).returncode, 0)

    def test_gdn_values_name_what_the_check_reads(self):
        call = valid_call()
        dict((c, m) for c, m, _, _ in TRIGGERS)["G20"](call)  # d_cache with V + 1 columns
        r = validate(call)
        self.assertIn(f"d_cache.shape = {tup(SLOTS, HV, L, V + 1)}", r.stdout)
        call = valid_call()
        call["nk"] = 3
        self.assertIn("  nk = 3\n", validate(call).stdout)
        call = valid_call()
        call["d_cache"]["device"] = "cuda:1"
        r = validate(call)
        self.assertEqual(r.stdout.splitlines()[:2],
                         ["X-GDN-DEVICE", render(catalog()["X-GDN-DEVICE"]["message"], {"operator": "gdn_replayssm"})])
        self.assertIn("d_cache.device = cuda:1", r.stdout)
        self.assertIn("mixed_qkv.device = cuda:0", r.stdout)

    def test_gdn_zero_size_heads_with_null_strides_fail_g10_as_the_wrapper_does(self):
        """Issue 34: initial_state [2, 2, 64, 0] float16, k_cache [2, 1, 17, 0], mixed_qkv [2, 128]
        with row stride 129, the rest valid and compact (null strides). SGLang's wrapper raises
        G10: PyTorch's strides of [2, 2, 64, 0] are (128, 64, 1, 1), zero-size dims counted as 1,
        not the (0, 0, 1) G10 wants; the harness answered V20, what the wrapper says only with
        hand-made strides [s, 0, 0, 1] (G10 passes, then G11: no q|k part). Its V = 0 twin fails
        G10 too; written out, PyTorch's strides give the same answer. With a q|k part and the
        hand-made strides, the wrapper divides by zero at G12: the harness's extension there."""
        def call(K, V):
            slots, HV, H, L, B = 2, 2, 1, 17, 2
            c = valid_call()
            c.update(initial_state=tensor([slots, HV, V, K], "float16"),
                     d_cache=tensor([slots, HV, L, V], "bfloat16"), k_cache=tensor([slots, H, L, K], "bfloat16"),
                     g_cache=tensor([slots, HV, L], "float32"), out=tensor([B, 1, HV, V], "bfloat16"),
                     mixed_qkv=tensor([B, 2 * H * K + HV * V], "bfloat16", [2 * H * K + HV * V + 1, 1]),
                     a=tensor([B, HV], "bfloat16"), b=tensor([B, HV], "bfloat16"), A_log=tensor([HV], "float32"),
                     dt_bias=tensor([HV], "float32"), ssm_state_indices=tensor([B]), write_pos=tensor([B]))
            return c

        g10 = catalog()["G10"]
        k0, v0 = call(0, 64), call(32, 0)
        self.assertEqual((k0["mixed_qkv"]["shape"], k0["k_cache"]["shape"]), ([2, 128], [2, 1, 17, 0]))
        for name, c, torch_strides in (("K = 0", k0, [128, 64, 1, 1]), ("V = 0", v0, [64, 32, 32, 1])):
            for strides in (None, torch_strides):
                with self.subTest(call=name, strides=strides):
                    c["initial_state"]["strides"] = strides
                    r = validate(c)
                    self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
                    self.assertEqual(r.stdout.splitlines()[:2], ["G10", g10["message"]])
                    shown = f"initial_state.strides = {tup(*torch_strides)}"
                    self.assertIn(shown + ("  (null: compact, as torch.empty allocates)" if strides is None else "\n"),
                                  r.stdout)
        k0["initial_state"]["strides"] = [128, 0, 0, 1]
        r = validate(k0)
        self.assertEqual(r.stdout.splitlines()[:1], ["V20"], r.stdout + r.stderr)
        k0["mixed_qkv"] = tensor([2, 130], "bfloat16")
        r = validate(k0)
        self.assertEqual(r.stdout.splitlines()[:1], ["X-GDN-EMPTY-HEADS"], r.stdout + r.stderr)

    def test_gdn_scalars_are_keys_of_its_calls_only(self):
        call = valid_call()
        call["nk"] = "two"
        self.assertEqual(validate(call).returncode, 2)
        r = run(["validate", "-"], input_text=json.dumps(valid_call()))
        self.assertEqual(r.returncode, 2)
        self.assertIn("cache_base", r.stderr)


class GdnCatalogAndCase(unittest.TestCase):
    def test_gdn_errors_lists_the_documented_checks_in_order(self):
        r = run(["errors", *OP])
        self.assertEqual(r.returncode, 0, r.stderr)
        ids = [line.split("\t")[0] for line in r.stdout.splitlines()]
        g = [i for i in ids if re.fullmatch(r"G\d+", i)]
        shared = {"V2": 2, "V8": 6, "V20": 11, "V22": 13, "R4": 16}  # spec: same condition, same text
        self.assertEqual(g, [f"G{n}" for n in range(1, 33) if n not in shared.values()])
        for kda_id in shared:
            self.assertIn(kda_id, ids)
        for x in ("X-GDN-GATE-STRIDES", "X-GDN-DEVICE", "X-GDN-NK", "X-CACHE-BASE"):
            self.assertIn(x, ids)
        self.assertLess(ids.index("G32"), ids.index("X-GDN-GATE-STRIDES"))
        for kda_only in ("W1", "V14", "R6", "X-RING-SLOTS"):
            self.assertNotIn(kda_only, ids)

    def test_gdn_case_with_one_gate_per_head_passes_against_the_truth(self):
        config = "B=2 H=1 HV=2 K=32 V=16 L=4 slots=3 steps=3 seed=3 gate=head"
        r = run(["case", config, *OP])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("gate=head", r.stdout)
        self.assertRegex(r.stdout.splitlines()[-1], r"^PASS reference vs the float64 plain recurrence, tokens 3")
        self.assertIn("replay: kda-harness case \"op=gdn_replayssm ", r.stdout)  # the replay line names the operator


if __name__ == "__main__":
    cli_test.main(sys.modules[__name__])
