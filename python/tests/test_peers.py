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
