"""The pytest plugin (entry point pytest11): `pytest --kda-backend module:function` (or
`--kda-backend plugin:/path/lib.so`) adds one test per case of each suite, run against that
backend; a failing case is an ordinary pytest failure that shows the replay line."""
import importlib
import sys
from pathlib import Path

import pytest

from . import checking
from .plugin_so import load_plugin


def pytest_addoption(parser):
    group = parser.getgroup("kda", "KDA decode-kernel conformance harness")
    group.addoption("--kda-backend", metavar="MODULE:FUNCTION",
                    help="run the harness's suites against this step function (or plugin:PATH.so)")
    group.addoption("--kda-op", default=None,
                    help="the operator the backend implements: kda_replayssm, kda_packed_decode (default: the "
                         "backend's kda_op attribute, else kda_replayssm)")
    group.addoption("--kda-suites", default="", help="comma-separated suites (default: all)")
    group.addoption("--kda-n", type=int, default=20, help="cases per suite (default 20)")
    group.addoption("--kda-seed", type=int, default=1, help="seed of the sample space (default 1)")
    group.addoption("--kda-device", default="cpu", help="device of the backend's tensors: cpu, cuda, cuda:1")
    group.addoption("--kda-framework", default=None, help="numpy or torch (default: numpy on cpu, else torch)")
    group.addoption("--kda-profile", default=None, help="rounding profile: helion or triton (default: the backend's)")


def load_backend(spec):
    """module:function, or plugin:PATH for a plugin shared library."""
    if spec.startswith("plugin:"):
        return load_plugin(spec[len("plugin:"):])
    module, sep, attr = spec.partition(":")
    if not sep or not module or not attr:
        raise pytest.UsageError(f"--kda-backend wants MODULE:FUNCTION or plugin:PATH, not {spec!r}")
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    target = importlib.import_module(module)
    for part in attr.split("."):
        target = getattr(target, part)
    return target


class KdaCaseFailure(Exception):
    def __init__(self, result):
        super().__init__(result.detail)
        self.result = result


class KdaCase(pytest.Item):
    def __init__(self, *, suite, index, backend_spec, **kwargs):
        super().__init__(**kwargs)
        self.suite, self.index, self.backend_spec = suite, index, backend_spec

    def runtest(self):
        opt = self.config.getoption
        backend = _backend(self.config)
        report = checking.check(backend, op=opt("kda_op"), suites=self.suite, n=1, first=self.index,
                                seed=opt("kda_seed"), device=opt("kda_device"), framework=opt("kda_framework"),
                                profile=opt("kda_profile"))
        result = report.cases[0]
        if not result.passed:
            raise KdaCaseFailure(result)

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, KdaCaseFailure):
            r = excinfo.value.result
            config, _, call = r.replay.partition(" | ")
            op = self.config.getoption("kda_op") or getattr(_backend(self.config), "kda_op", None)
            flag = f" --op {op}" if op and op != "kda_replayssm" else ""
            text = f"{r.suite} case {r.index} failed: {r.detail}\nreplay: kda-harness case \"{config}\"{flag}"
            if r.suite == "rollout":
                text += f"\nagainst this backend: kda_harness.check(step_fn, config=\"{config}\")"
            return text + (f"\nthe call: {call}" if call else "")
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.backend_spec, None, f"kda {self.suite}[{self.index}]"


def _backend(config):
    if not hasattr(config, "_kda_backend"):
        config._kda_backend = load_backend(config.getoption("kda_backend"))
    return config._kda_backend


def pytest_collection_modifyitems(session, config, items):
    spec = config.getoption("kda_backend")
    if not spec:
        return
    _backend(config)  # a backend that does not load is a usage error, before any test runs
    names = [s for s in config.getoption("kda_suites").split(",") if s] or checking.suites()
    for suite in names:
        for i in range(config.getoption("kda_n")):
            items.append(KdaCase.from_parent(session, name=f"{suite}[{i}]", nodeid=f"kda::{suite}[{i}]",
                                             suite=suite, index=i, backend_spec=spec))
