"""kda_harness.peers: step functions over other projects' kernels. Importing them needs none of
those projects; their signatures must stay the operator's (a renamed argument fails here, before
any GPU run)."""
import inspect

from kda_harness.checking import operator_of
from kda_harness.peers import fla


def test_the_fla_step_is_judged_as_its_operator_and_takes_every_argument():
    assert operator_of(fla.kda_step) == "fla_recurrent_kda"
    params = set(inspect.signature(fla.kda_step).parameters)
    from kda_harness import _operators
    assert set(_operators.arguments("fla_recurrent_kda")) <= params
    assert fla.kda_step.kda_envelope.strided is True  # the pool at any slot stride, as fla reads it


def test_the_fla_gdn_step_is_judged_as_its_operator_and_takes_every_argument():
    assert operator_of(fla.gdn_step) == "fla_recurrent_gdn"
    params = set(inspect.signature(fla.gdn_step).parameters)
    from kda_harness import _operators
    assert set(_operators.arguments("fla_recurrent_gdn")) <= params
    assert "lower_bound" not in params  # fla's Gated DeltaNet has no bounded gate
    assert fla.gdn_step.kda_envelope.strided is True  # it indexes the pool itself


def test_the_sglang_cutedsl_and_flashinfer_steps_take_every_argument_of_their_operators():
    from kda_harness import _operators
    from kda_harness.peers import flashinfer, sglang_cutedsl
    for step, op in ((sglang_cutedsl.kda_step, "fla_recurrent_kda"), (flashinfer.gdn_step, "fla_recurrent_gdn")):
        assert operator_of(step) == op
        assert set(_operators.arguments(op)) <= set(inspect.signature(step).parameters)
        assert "T=1" in step.kda_pin.split() and "gik=1" in step.kda_pin.split()


def test_a_pinned_check_runs_every_kernel_case_in_the_pinned_mode():
    """check(pin=...) draws each case as without it and replaces the pinned keys: the step sees
    only one-token, V-first, gate-in-kernel calls, and the report keeps the drawn indices."""
    import kda_harness

    seen = []

    def step(q, k, v, g, beta, initial_state, ssm_state_indices, out, A_log=None, dt_bias=None,
             num_accepted_tokens=None, scale=None, use_qk_l2norm_in_kernel=False, use_gate_in_kernel=False,
             use_beta_sigmoid_in_kernel=False, allow_neg_eigval=False, lower_bound=None, state_v_first=False):
        seen.append((q.shape[1], ssm_state_indices.ndim, num_accepted_tokens is None, state_v_first,
                     use_gate_in_kernel, use_beta_sigmoid_in_kernel, lower_bound))

    pin = "T=1 idx2d=0 nat=0 vfirst=1 gik=1 bsig=1 lb=none"
    report = kda_harness.check(step, op="fla_recurrent_kda", suites="kernel", n=6, pin=pin, shrink=False)
    assert seen and set(seen) == {(1, 1, True, True, True, True, None)}
    assert [c.index for c in report.cases] == list(range(6))
    assert all(set(pin.split()) <= set(c.replay.split()) for c in report.cases)
    pinned = set(seen)
    seen.clear()
    kda_harness.check(step, op="fla_recurrent_kda", suites="kernel", n=6, shrink=False)
    assert set(seen) != pinned  # without the pin the drawn modes vary


def test_a_pin_that_is_no_list_of_config_keys_is_refused_before_any_case():
    import pytest

    import kda_harness
    calls = []
    for bad in ("T", "op=kda_replayssm", "T=1 T=2", "nokey=1"):
        with pytest.raises(ValueError, match="pin"):
            kda_harness.check(lambda **kw: calls.append(1), op="fla_recurrent_kda", suites="kernel", n=1, pin=bad)
    assert not calls


def test_the_one_token_steps_refuse_another_call_form_before_importing_their_library():
    """Neither library is installed here: a refusal that reached the import would be an ImportError."""
    import numpy as np
    import pytest
    from kda_harness.peers import flashinfer, sglang_cutedsl
    q, idx = np.zeros((2, 1, 1, 4)), np.zeros(2, dtype=np.int32)
    pinned = dict(use_gate_in_kernel=True, use_beta_sigmoid_in_kernel=True, state_v_first=True)
    for step in (sglang_cutedsl.kda_step, flashinfer.gdn_step):
        for change in ({"state_v_first": False}, {"use_gate_in_kernel": False}, {"num_accepted_tokens": idx},
                       {"q": np.zeros((2, 3, 1, 4))}, {"ssm_state_indices": np.zeros((2, 1), dtype=np.int32)}):
            args = dict(q=q, k=q, v=q, g=q, beta=q, initial_state=q, ssm_state_indices=idx, out=q, A_log=q, dt_bias=q,
                        **pinned)
            args.update(change)
            with pytest.raises(ValueError, match="takes one token per sequence"):
                step(**args)
