"""The defaults of every entry point: the harness's one table (engine/driver/defaults.hpp), as the C
library gives it (kda_defaults). check(), suite_names() and the pytest plugin take theirs from
here; the command line reads the same table."""
import functools
import json

from . import _lib


@functools.lru_cache(maxsize=1)
def _table():
    return json.loads(_lib.lib().kda_defaults().decode())


def defaults():
    """The table as a dict: op (a plugin or a callable with kda_op is judged as its own), seed,
    profile (of a callable without kda_profile), suites (check()'s, pytest's; kernel-contract only
    when named), cli_suites (`kda-harness check --backend plugin:PATH`'s: those and golden-kernel),
    cases (check()'s n, pytest's --kda-n), work_budget (check()'s), cli_work_budget (`check
    --gpu-work-budget`'s: case i of a suite is the same at the same budget)."""
    return dict(_table())
