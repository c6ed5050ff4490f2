"""validate() against the catalog: each documented check broken on numpy tensors raises the
catalog's message, rendered here the way SGLang renders it (the catalog keeps SGLang's
f-string templates; they are evaluated on the same tensors), with the catalog id."""
import re

import numpy as np
import pytest

import kda_harness

LINE = "B=3 H=2 HV=4 K=8 V=16 L=4 slots=5 act=f32 state=f32 ring=bf16 out=f32 idx=i32 ff=1 pad=0 seed=7"
B, H, HV, K, V, L, S = 3, 2, 4, 8, 16, 4, 5
QKV = 2 * H * K + HV * V
f32, i32 = np.float32, np.int32


def zeros(shape, dtype=f32):
    return np.zeros(shape, dtype)


def strided(shape, dtype=f32):
    """Every other element of a wider array: last stride 2."""
    return np.zeros(tuple(shape[:-1]) + (2 * shape[-1],), dtype)[..., ::2]


# (id, replaced tensors, values of the template's names that differ from the valid call's)
ERROR_INPUTS = [
    ("W1", {"a": zeros((B * HV * K,))}, {}),
    ("W2", {"dt_bias": zeros((HV, K, 1))}, {}),
    ("V1", {"mixed_qkv": zeros((B, 1, QKV))}, {"ndim": 3}),
    ("V2", {"mixed_qkv": strided((B, QKV))}, {}),
    ("V3", {"b": zeros((B, HV, 1))}, {}),
    ("V4", {"b": strided((B, HV))}, {}),
    ("V5", {"A_log": zeros((HV, 1))}, {}),
    ("V6", {"A_log": strided((HV,))}, {}),
    ("V7", {"ssm_state_indices": zeros((B, 1), i32)}, {"ndim": 2}),
    ("V8", {"out": strided((B, 1, HV, V))}, {}),
    ("V10", {"b": zeros((B + 1, HV))}, {"a0": B, "b0": B + 1}),
    ("V11", {"ssm_state_indices": zeros((B + 1,), i32)}, {}),
    ("V12", {"initial_state": zeros((1, S, HV, V, K))}, {"ndim": 5}),
    ("V13", {"initial_state": strided((S, HV, V, K))}, {}),
    ("V14", {"initial_state": zeros((S, HV, V, 3))}, {"K": 3}),
    ("V15", {"a": zeros((B, 2 * HV * K))}, {}),
    ("V16", {"b": zeros((B, HV + 1))}, {}),
    ("V17", {"A_log": zeros((HV + 1,))}, {"numel": HV + 1}),
    ("V18", {"dt_bias": zeros((HV * K + 1,))}, {"numel": HV * K + 1}),
    ("V19", {"out": zeros((B, 1, HV, V + 1))}, {}),
    ("V20", {"mixed_qkv": zeros((B, HV * V + 1))}, {"qkv_dim": HV * V + 1}),
    ("V21", {"mixed_qkv": zeros((B, 2 * (H * K + 1) + HV * V))}, {"q_dim": H * K + 1}),
    ("V22", {"mixed_qkv": zeros((B, 2 * (HV + 1) * K + HV * V))}, {"H": HV + 1}),
    ("R1", {"write_pos": zeros((B,), np.int64)}, {}),
    ("R2", {"write_pos": zeros((B + 1,), i32)}, {}),
    ("R3", {"force_flush": zeros((B + 1,), i32)}, {}),
    ("R4", {"d_cache": zeros((S, HV, 0, V))}, {}),
    ("R5", {"d_cache": zeros((S, HV + 1, L, V))}, {}),
    ("R6", {"k_cache": zeros((S, HV, L, K))}, {}),  # allocated with HV heads instead of H
    ("R7", {"g_cache": zeros((S, HV, L + 1, K))}, {}),
    ("R8", {"g_cache": zeros((S, HV, L, K), np.float16)}, {}),
]


def valid_call():
    return kda_harness.case(LINE).kwargs()


def render(template, call, extra):
    """The message as SGLang's f-string gives it on these tensors (a and dt_bias flattened, as
    the wrapper passes them on)."""
    names = dict(call)
    names["a"] = np.asarray(call["a"]).reshape(B, -1)
    names["dt_bias"] = np.asarray(call["dt_bias"]).reshape(-1)
    names.update(B=B, batch=B, H=H, HV=HV, K=K, V=V, qkv_dim=QKV, a0=B, b0=B)
    names.update(extra)
    return eval("f" + repr(template), {}, names)


def test_the_valid_call_gives_its_dims():
    assert kda_harness.validate(**valid_call()) == kda_harness.Dims(B, H, HV, K, V, L, S)


@pytest.mark.parametrize("error_id,replaced,extra", ERROR_INPUTS, ids=[e[0] for e in ERROR_INPUTS])
def test_each_documented_check_raises_the_catalog_message(catalog, error_id, replaced, extra):
    call = {**valid_call(), **replaced}
    with pytest.raises(kda_harness.ContractError) as raised:
        kda_harness.validate(**call)
    expected = render(catalog[error_id]["message"], call, extra)
    assert str(raised.value) == expected
    assert raised.value.id == error_id
    assert re.fullmatch(catalog[error_id]["messagePattern"], expected)
    assert isinstance(raised.value, ValueError)


def test_every_documented_check_a_host_call_can_break_is_covered(catalog):
    device_checks = {"V9", "R9", "R10"}  # another device than mixed_qkv's: not with numpy alone
    documented = {
        i for i in kda_harness.error_ids("kda_replayssm") if catalog[i]["origin"] != "harness extension"
    }
    assert documented - device_checks == {e[0] for e in ERROR_INPUTS}


def test_the_first_failing_check_wins():
    call = {**valid_call(), "k_cache": zeros((S, HV, L, K)), "initial_state": zeros((S, HV, V, 3))}
    with pytest.raises(kda_harness.ContractError) as raised:
        kda_harness.validate(**call)
    assert raised.value.id == "V14"


class Producer:
    """An array known only through the DLPack protocol (what torch, cupy and jax offer)."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_tensors_of_any_dlpack_producer():
    line = LINE.replace("ring=bf16", "ring=f32")  # numpy exports no bfloat16 through DLPack
    call = kda_harness.case(line).kwargs()
    wrapped = {k: Producer(v) if isinstance(v, np.ndarray) else v for k, v in call.items()}
    assert kda_harness.validate(**wrapped) == kda_harness.Dims(B, H, HV, K, V, L, S)
    wrapped["k_cache"] = Producer(zeros((S, HV, L, K)))
    with pytest.raises(kda_harness.ContractError) as raised:
        kda_harness.validate(**wrapped)
    assert raised.value.id == "R6"


def test_runtime_values_on_request():
    call = valid_call()
    call["ssm_state_indices"] = np.array([0, 1, S], i32)
    kda_harness.validate(**call)  # metadata only: accepted, as SGLang's wrapper accepts it
    with pytest.raises(kda_harness.ContractError) as raised:
        kda_harness.validate(**call, check_values=True)
    assert raised.value.id == "X-SLOT-INDEX"


def test_null_strides_are_the_strides_torch_allocates():
    """A DLTensor with null strides is compact as torch.empty(shape) has it: a zero-size dim
    counts as 1 in the strides of the dims before it (e.g. [2, 2, 64, 0] has
    (128, 64, 1, 1)), not (0, 0, 0, 1)."""
    import ctypes

    from kda_harness import _abi, _dlpack

    for shape, strides in (((2, 2, 64, 0), (128, 64, 1, 1)), ((0, 3), (3, 1)), ((4, 0, 5), (5, 5, 1)),
                           ((3, 4), (4, 1))):
        t = _abi.DLTensor()
        t.ndim = len(shape)
        t.shape = (ctypes.c_int64 * len(shape))(*shape)
        assert _dlpack.shape_strides(t) == (shape, strides)


def test_error_ids_name_catalog_entries_in_catalog_order(catalog):
    order = list(catalog)
    for op in kda_harness.operators():
        ids = kda_harness.error_ids(op)
        assert ids and all(i in catalog for i in ids), op
        assert [order.index(i) for i in ids] == sorted(order.index(i) for i in ids), op
    assert kda_harness.error_ids()[:2] == ("W1", "W2")  # the default operator's: SGLang's first two checks
    with pytest.raises(ValueError, match="unknown operator"):
        kda_harness.error_ids("no_such_op")
