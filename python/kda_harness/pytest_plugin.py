"""The pytest plugin (entry point pytest11).

`pytest --kda-backend module:function` (or `--kda-backend plugin:/path/lib.so`) adds one test
per case of each suite, run against that backend: `kda::kda_kernel_truth[seed-1-case-12]`,
marked `kda` and `kda_kernel_truth` (the suite kernel-truth), so
`-k 'kda_kernel_truth[seed-1-case-12]'`, `-m kda_kernel_truth`, `--co`, `--lf` and
xdist work on them as on any test. A failing case is an ordinary pytest failure that prints
the line rerunning it on the backend, the CPU reference's replay line and the kernel's
traceback. The `kda_case` fixture gives hand-written tests cases of the same sample space (one
test per case: kda_harness.config_line's, not a suite's, whose case i also depends on the suite)."""
import importlib
import shlex
import sys
from pathlib import Path

import pytest

from . import _operators, checking
from ._defaults import defaults
from .plugin_so import load_plugin

# check()'s suites, for the markers (the names are checking.suites(), the C library's, which is
# asked only when tests run: the plugin loads in every pytest run of the environment it is
# installed in; a test keeps the two the same).
SUITES = {
    "kernel": "step by step against the CPU reference within the profile's bounds",
    "kernel-truth": "whole rollouts against the float64 recurrence",
    "envelope": "a call just outside the backend's envelope refused, nothing written",
    "kernel-contract": "each documented error input refused with SGLang's exact message (any message where only a "
                       "harness extension refuses it), nothing written",
}


def op_help():
    """--kda-op's help: the operators of the C library's table, the default first. The plugin
    loads in every pytest run of the environment it is installed in, so a library that does not
    load here leaves the help naming where the list is, and the run goes on; a test run that
    needs the library reports it then."""
    try:
        names = _operators.names()
    except (ImportError, OSError) as e:
        reason = str(e).replace("%", "%%")  # argparse formats help strings with %
        return (f"the operator the backend implements, one of kda_harness.operators() (the C library did not load "
                f"here: {reason}) (default: a plugin's own, a function's kda_op attribute, else the table's first)")
    return (f"the operator the backend implements: {', '.join(names)} (default: a plugin's own, a function's "
            f"kda_op attribute, else {names[0]})")


def pytest_addoption(parser):
    group = parser.getgroup("kda", "KDA decode-kernel conformance harness")
    group.addoption("--kda-backend", metavar="MODULE:FUNCTION",
                    help="run the harness's suites against this step function (or plugin:PATH.so)")
    # The defaults are the harness's one table (kda_harness.defaults()), read when the tests run:
    # the plugin loads in every pytest run of the environment it is installed in.
    group.addoption("--kda-op", default=None, help=op_help())
    group.addoption("--kda-suites", default="",
                    help="comma-separated suites (default: kernel, kernel-truth, envelope, as kda-harness check; "
                         "kernel-contract when named)")
    group.addoption("--kda-n", type=int, default=None, help="cases per suite (default: the defaults table's, 20 each, kernel-contract one per documented error input where more)")
    group.addoption("--kda-first", type=int, default=0, help="the first case of each suite (default 0)")
    group.addoption("--kda-seed", type=int, default=None, help="seed of the sample space (default 1)")
    group.addoption("--kda-device", default="cpu", help="device of the backend's tensors: cpu, cuda, cuda:1")
    group.addoption("--kda-framework", default=None, help="numpy or torch (default: numpy on cpu, else torch)")
    group.addoption("--kda-profile", default=None, help="rounding profile: helion or triton (default: the backend's)")


def pytest_configure(config):
    config.addinivalue_line("markers", "kda: a case of the KDA harness's suites (--kda-backend) or a test taking kda_case")
    for suite, what in SUITES.items():
        config.addinivalue_line("markers", f"{marker(suite)}: a case of the KDA harness's {suite} suite: {what}")


def load_backend(spec):
    """module:function, or plugin:PATH for a plugin shared library; pytest.UsageError if it
    does not load."""
    try:
        if spec.startswith("plugin:"):
            return load_plugin(spec[len("plugin:"):])
        module, sep, attr = spec.partition(":")
        if not sep or not module or not attr:
            raise pytest.UsageError(f"--kda-backend wants MODULE:FUNCTION or plugin:PATH, not {spec!r}")
        if str(Path.cwd()) not in sys.path:
            sys.path.insert(0, str(Path.cwd()))
        target = importlib.import_module(module)
        for part in attr.split("."):
            if not hasattr(target, part):
                raise pytest.UsageError(f"--kda-backend {spec}: {target.__name__ if target is not None else module} "
                                        f"has no attribute {part!r}")
            target = getattr(target, part)
    except (ImportError, OSError, ValueError) as e:
        raise pytest.UsageError(f"--kda-backend {spec}: {type(e).__name__}: {e}") from None
    if not callable(target):
        raise pytest.UsageError(f"--kda-backend {spec}: {type(target).__name__} is not callable")
    return target


def _backend(config):
    if not hasattr(config, "_kda_backend"):
        config._kda_backend = load_backend(config.getoption("kda_backend"))
    return config._kda_backend


def _op(config):
    """The operator the backend is judged as (--kda-op, else its own); pytest.UsageError naming
    the option where its signature takes another operator's arguments."""
    try:
        return checking.operator_of(_backend(config), config.getoption("kda_op"))
    except ValueError as e:
        raise pytest.UsageError(f"--kda-backend {config.getoption('kda_backend')}: {e}") from None


def option(config, name):
    """--kda-n and --kda-seed as given, else the defaults table's cases and seed."""
    given = config.getoption(name)
    return given if given is not None else defaults()[{"kda_n": "cases", "kda_seed": "seed"}[name]]


def suite_count(config, suite):
    """--kda-n as given, else the defaults table's count of the suite for the operator judged
    (kernel-contract: at least one case per documented error input)."""
    given = config.getoption("kda_n")
    return given if given is not None else defaults()["suite_cases"][_op(config)][suite]


def marker(suite):
    """The marker of a suite's cases, and their test name: kda_kernel_truth for kernel-truth (a
    marker is a Python name)."""
    return "kda_" + suite.replace("-", "_")


def case_id(seed, index):
    return f"seed-{seed}-case-{index}"


class KdaCaseFailure(Exception):
    def __init__(self, result):
        super().__init__(result.detail)
        self.result = result


class KdaCase(pytest.Item):
    """One case of one suite against the --kda-backend."""

    def __init__(self, *, suite, index, **kwargs):
        super().__init__(**kwargs)
        self.suite, self.index = suite, index
        self.add_marker("kda")
        self.add_marker(marker(suite))

    def runtest(self):
        opt = self.config.getoption
        report = checking.check(_backend(self.config), op=opt("kda_op"), suites=self.suite, n=1, first=self.index,
                                seed=option(self.config, "kda_seed"), device=opt("kda_device"), framework=opt("kda_framework"),
                                profile=opt("kda_profile"))
        result = report.cases[0]
        if result.skipped:
            pytest.skip(result.detail)
        if not result.passed:
            raise KdaCaseFailure(result)

    def rerun_command(self):
        """The pytest command line that runs this case alone."""
        opt = self.config.getoption
        args = ["pytest", "--kda-backend", opt("kda_backend")]
        for flag, name, default in (("--kda-op", "kda_op", None), ("--kda-seed", "kda_seed", None),
                                    ("--kda-device", "kda_device", "cpu"), ("--kda-framework", "kda_framework", None),
                                    ("--kda-profile", "kda_profile", None)):
            if opt(name) != default:
                args += [flag, str(opt(name))]
        args += ["--kda-suites", self.suite, "--kda-first", str(self.index), "--kda-n", "1", "-k", self.name]
        return shlex.join(args)

    def repr_failure(self, excinfo):
        if not isinstance(excinfo.value, KdaCaseFailure):
            return super().repr_failure(excinfo)
        r = excinfo.value.result
        lines = [f"{r.suite} case {r.index} (seed {option(self.config, 'kda_seed')}) failed: {r.detail}",
                 f"rerun on your kernel: {self.rerun_command()}",
                 f"  or from Python: {r.rerun}",
                 f"replay on the CPU reference: {r.reference_line()}"]
        if r.traceback:
            lines += ["the kernel raised:", r.traceback.rstrip("\n")]
        return "\n".join(lines)

    def reportinfo(self):
        return self.path, None, self.nodeid


class KdaSuites(pytest.Collector):
    """The --kda-backend's cases, under the session."""

    def collect(self):
        config = self.config
        first, seed = config.getoption("kda_first"), option(config, "kda_seed")
        for suite in _suites(config):
            for i in range(first, first + suite_count(config, suite)):
                name = f"{marker(suite)}[{case_id(seed, i)}]"
                # The id as a string, parsed as pytest parses the ids --lf stored: `name[params]`.
                yield KdaCase.from_parent(self, name=name, nodeid=f"{self.nodeid}::{name}", suite=suite, index=i)


def _suites(config):
    try:
        return checking.suite_names(config.getoption("kda_suites"))
    except ValueError as e:
        raise pytest.UsageError(f"--kda-suites: {e}") from None


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    # The cases join the session's own collection (not pytest_collection_modifyitems), so that
    # pytest counts them: `--co`, `-k` and `-m` report the right numbers.
    report = yield
    if isinstance(collector, pytest.Session) and collector.config.getoption("kda_backend") and report.passed:
        _backend(collector.config)  # a backend that does not load is a usage error, before any test runs
        _op(collector.config)  # nor one whose signature takes another operator's arguments
        _suites(collector.config)
        report.result.append(KdaSuites.from_parent(collector, name="kda", nodeid="kda"))
    return report


def pytest_generate_tests(metafunc):
    if "kda_case" not in metafunc.fixturenames:
        return
    config = metafunc.config
    first, n, seed = config.getoption("kda_first"), option(config, "kda_n"), option(config, "kda_seed")
    metafunc.parametrize("kda_case", [pytest.param(i, id=case_id(seed, i), marks=pytest.mark.kda)
                                      for i in range(first, first + n)], indirect=True)


@pytest.fixture
def kda_case(request):
    """One case of the sample space (a kda_harness.Case: .config, .tensors, .kwargs()), of the
    operator --kda-op (else the --kda-backend's, else the default), seed --kda-seed, inside
    the --kda-backend's envelope when it declares one, as --kda-framework tensors on
    --kda-device; a test taking it runs once per case (--kda-first, --kda-n)."""
    from .cases import case, config_line

    config = request.config
    backend = _backend(config) if config.getoption("kda_backend") else None
    op = _operators.resolve(config.getoption("kda_op") or getattr(backend, "kda_op", None))
    device = config.getoption("kda_device")
    framework = config.getoption("kda_framework") or ("numpy" if device == "cpu" else "torch")
    line = config_line(request.param, option(config, "kda_seed"), op,
                       envelope=getattr(backend, "kda_envelope", None))
    return case(line, framework, None if device == "cpu" else device, index=request.param, op=op)
