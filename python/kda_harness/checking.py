"""check(): the harness's suites run against a Python callable with the signature of SGLang's
wrapper of an operator (ReplaySSM's by default, or the plain packed decode's). The callable is
wrapped as a host plugin of that operator (plugin.h's kda_plugin, built here with ctypes)
whose step lends the harness's tensors to it as the caller's framework tensors on the
caller's device, calls it with contract.md's keyword arguments (the operator's tensors),
copies every tensor back, and turns a ValueError into a refusal carrying its text (which the
kernel-contract suite compares with the catalog message; where only a harness extension refuses
the input, any exception passes, as SGLang's wrapper meets a framework error there). The suites and their runner are the
engine's (engine/driver/suites.hpp), the ones `kda-harness check` runs."""
import contextlib
import ctypes
import inspect
import json
import signal
import threading
import time
import traceback
from pathlib import Path

from . import _abi, _call, _frameworks, _isolate, _lib, _operators, _status
from ._defaults import defaults
from .envelope import Envelope
from .errors import HarnessError
from .report import CaseResult, CheckReport, callable_expression, rerun_call

_PACKAGE = Path(__file__).resolve().parent  # frames in it are the harness's, not the kernel's


class CallablePlugin:
    """A Python step function as a kda_plugin the C library can drive."""

    def __init__(self, step_fn, name, envelope, profile, framework, device, op=None, step_timeout=None):
        self.step_fn = step_fn
        self.step_timeout = step_timeout
        self.op = op
        self.tensor_names = _operators.tensor_names(op)
        self.adapter = _frameworks.adapter(framework, device)
        self.interrupt = None  # a Ctrl-C that arrived during the run, re-raised after the C call
        self.in_step = False  # whether step_fn is running (a Ctrl-C then interrupts it)
        self.tracebacks = []  # of the exceptions step_fn raised since the list was emptied
        self._error = ctypes.create_string_buffer(1)
        self._step = _abi.STEP_FN(self._on_step)
        self._last_error = _abi.LAST_ERROR_FN(lambda state: ctypes.addressof(self._error))
        self.struct = _abi.KdaPlugin(
            abi_version=_abi.KDA_PLUGIN_ABI_VERSION, name=name.encode(), op=op.encode(), profile=profile,
            envelope=envelope.to_c(_abi.KDL_CPU), state=None, step=self._step, last_error=self._last_error,
            invalid_rows=envelope.invalid_rows_code(), ring_modes=envelope.ring_modes_code())

    def _refuse(self, message, code):
        self._error = ctypes.create_string_buffer(message.encode("utf-8", "replace"))
        return code

    # Runs inside a C callback: nothing may propagate (ctypes would print it and return 0).
    def _on_step(self, state, call_pointer):
        try:
            if self.interrupt is not None:
                return self._refuse(type(self.interrupt).__name__, 2)
            tensors, scalars = _call.read_call(call_pointer.contents)
            lent = self.adapter.lend(tensors)
            try:
                self.in_step = True
                _within(self.step_timeout, self.step_fn, {name: lent.get(name) for name in self.tensor_names}, scalars)
            finally:
                self.in_step = False
                self.adapter.give_back()
            return 0
        except ValueError as e:
            self._keep_traceback(e)
            return self._refuse(str(e), 1)
        except Exception as e:
            self._keep_traceback(e)
            return self._refuse(f"{type(e).__name__}: {e}{_operators.mismatch_hint(self.op, e)}", 2)
        except BaseException as e:  # KeyboardInterrupt, SystemExit: re-raised after the C call
            self.interrupt = e
            return self._refuse(f"{type(e).__name__}", 2)

    def _keep_traceback(self, e):
        # From the kernel's first frame: where it raised, not how the harness called it (the
        # whole traceback when the exception never reached the kernel's code).
        frames = e.__traceback__
        while frames is not None and Path(frames.tb_frame.f_code.co_filename).resolve().parent == _PACKAGE:
            frames = frames.tb_next
        self.tracebacks.append("".join(traceback.format_exception(type(e), e, frames or e.__traceback__)))


@contextlib.contextmanager
def _ctrl_c_deferred(plugin):
    """Ctrl-C during check() on the main thread: a KeyboardInterrupt raised inside step_fn, else
    recorded on the plugin (refusing every later step) and raised once the C call returns.
    Python's own handler could raise on _on_step's first line, outside its try: ctypes would
    then print the exception, count the step as done and lose the interrupt."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return

    def on_sigint(signum, frame):
        plugin.interrupt = plugin.interrupt or KeyboardInterrupt()
        if plugin.in_step:
            raise plugin.interrupt

    signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if plugin.interrupt is not None:
        raise plugin.interrupt


class StepTimeout(Exception):
    """A step ran past check()'s step_timeout."""


def _within(timeout, fn, tensors, scalars):
    """fn(**tensors, **scalars), stopped by a StepTimeout once it runs past timeout seconds: by
    SIGALRM on the main thread (Python code is interrupted; a C call returns first), measured
    afterwards on any other thread."""
    if timeout is None:
        return fn(**tensors, **scalars)
    message = f"the step ran past step_timeout={timeout:g}s"
    if threading.current_thread() is not threading.main_thread():
        start = time.monotonic()
        fn(**tensors, **scalars)
        if time.monotonic() - start > timeout:
            raise StepTimeout(message)
        return None

    def on_alarm(signum, frame):
        raise StepTimeout(message)

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return fn(**tensors, **scalars)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _device_name(device):
    """None, "cpu", "cuda" or "cuda:N"; anything else is a ValueError."""
    if device in (None, "cpu", "cuda"):
        return device
    if isinstance(device, str) and device.startswith("cuda:") and device[5:].isdigit():
        return device
    raise ValueError(f'device must be "cpu", "cuda" or "cuda:N", not {device!r}')


def _profile_code(profile):
    if isinstance(profile, int):
        return profile
    try:
        return _abi.PROFILES[profile]
    except KeyError:
        raise ValueError(f"profile must be one of {sorted(_abi.PROFILES)}, not {profile!r}") from None


def suites():
    """The suites check() can run: the backend suites of the harness's one table (the names of
    `kda-harness check --list`): kernel, kernel-truth, envelope, kernel-contract. It runs the
    defaults() ones (all but kernel-contract, as `kda-harness check`) unless named."""
    return _known_suites()


def _known_suites():  # check()'s argument `suites` hides suites()
    return _lib.lib().kda_check_suites().decode().split(",")


def suite_names(suites):
    """The names in `suites` (a list, or a comma-separated string; None or empty: the default
    ones, defaults()["suites"]),
    or a ValueError saying what is wrong with one (a former name, rollout or truth, names the
    new one), from the C library."""
    names = list(suites) if isinstance(suites, (list, tuple)) else [s for s in (suites or "").split(",") if s]
    err = _abi.KdaError()
    _status.raise_for(_lib.lib().kda_check_suites_valid(",".join(names).encode(), ctypes.byref(err)), err)
    return names or defaults()["suites"].split(",")


def operator_of(step_fn, op=None):
    """The operator check() judges step_fn as: `op`, else its kda_op attribute (a plugin's is the
    operator it implements), else the default; a ValueError naming the option to set where
    step_fn's signature shows it takes another operator's arguments (pytest: --kda-op)."""
    chosen = _operators.resolve(op or getattr(step_fn, "kda_op", None))
    _operators.tensor_names(chosen)  # an unknown operator is a ValueError naming the known ones
    fits = _operators.fitting(step_fn)
    if fits is None or chosen in fits:
        return chosen
    name = getattr(step_fn, "__qualname__", None) or type(step_fn).__name__
    how = f"op={op!r}" if op else "its kda_op" if getattr(step_fn, "kda_op", None) else "the default operator"
    missing = [a for a in _operators.arguments(chosen) if a not in inspect.signature(step_fn).parameters]
    takes = f"its signature takes {', '.join(fits)}'s: pass op={fits[0]!r} (pytest: --kda-op {fits[0]}) or give it a " \
            f"kda_op attribute" if fits else "its signature takes no operator's arguments by keyword"
    raise ValueError(f"{name} is judged as {chosen} ({how}), but its signature does not take {chosen}'s arguments"
                     f"{' (' + ', '.join(missing) + ')' if missing else ''}; {takes}")


def check(step_fn, op=None, suites=None, n=None, seed=None, device="cpu", framework=None, profile=None,
          envelope=None, first=0, work_budget=None, name=None, config=None, step_timeout=None, restrict=None,
          isolate=False, case_timeout=None, probe_invalid_indices=False, model=None, time=False, shrink=True,
          pin=None):
    """Runs the suites (default: defaults()["suites"], kernel, kernel-truth and envelope, as
    `kda-harness check` runs them; kernel-contract when named; a list or comma-separated string;
    rollout and truth, their former names, are a ValueError naming the new ones) on cases
    first .. first+n-1 (n: defaults()["suite_cases"][op][suite]: 20, kernel-contract one per documented error input where more; seed: defaults()["seed"], 1) of each of operator `op`'s against
    step_fn, called as step_fn(mixed_qkv=..., a=..., ..., lower_bound=...) with the
    operator's tensors, of `framework` ("numpy" on the host by default; "torch" on `device`),
    that it must write in place. op (one of operators()), profile ("helion",
    "triton") and envelope (Envelope) default to the callable's kda_op / kda_profile /
    kda_envelope attributes (a plugin's are its own), else the default operator (operators()[0]), "helion" and everything the contract
    allows; a step whose signature takes another operator's arguments is a ValueError saying so. The envelope says what step_fn refuses (the envelope suite checks that it does);
    restrict (an Envelope) only narrows where the cases are drawn, inside the envelope, claiming
    nothing (restrict=Envelope(k=(128, 128), v=(128, 128)) tests your production K and V on a
    kernel that also computes others). Case i of a suite is case i of `kda-harness check
    --backend plugin:PATH --suites SUITE --seed SEED --gpu-work-budget WORK_BUDGET`. Runtime-invalid
    rows (a slot past the pool, a cursor outside the ring) are the caller's duty unless the
    envelope declares invalid_rows="raise": then one kernel case in five makes one, which must be
    refused; probe_invalid_indices=True feeds them to a kernel that claims nothing and reports,
    never fails, what it did. config: a case's replay line (its op= the operator where op is
    not given), to run that case alone against the
    reference (suites="kernel-truth": against the float64 truth; n and first are then ignored).
    model: "NAME[:tp=N]" (`kda-harness check --list-models`), the kernel suites draw that model's per-GPU heads at K = V =
    128 with decode batches as a server runs them (B 1..256, padding, slots above B). step_timeout: seconds a step may take
    before it fails its case (None: no limit). isolate: each case in a forked child process,
    where a crash, an abort or a hang past case_timeout seconds fails that case with its
    replay line and the run goes on (kda_harness/_isolate.py). Returns a CheckReport; Ctrl-C
    raises KeyboardInterrupt within a step. time: after the suites, the step timed per shape class as
    `kda-harness check --time` times it (report.timing, printed with the report; decides nothing).
    shrink: the first failing rollout of each cause of the kernel suites is rerun smaller, as `kda-harness
    check` shrinks it (the C library's kda_shrink_case), and the smallest config that still fails of
    that cause is printed beside it (CaseResult.shrunk); not with isolate.
    pin: config keys every drawn case takes ("T=1 vfirst=1 gik=1"; default: the callable's kda_pin
    attribute), for a step that serves one mode of its operator (a kernel whose signature has one
    form of a call the operator has several of): each case is drawn as without it, then its keys
    set, in every suite (`kda-harness check --pin`)."""
    device = _device_name(device)
    given_n = n  # None: each suite's default (defaults()["suite_cases"]: kernel-contract reaches every error input)
    n = defaults()["cases"] if n is None else n
    seed = defaults()["seed"] if seed is None else seed
    if not config and not (isinstance(n, int) and not isinstance(n, bool) and n > 0):
        raise ValueError(f"n must be a positive number of cases per suite, not {n!r} (a check of no case verifies nothing)")
    seed = _abi.checked_seed(seed)
    if step_timeout is not None and not (isinstance(step_timeout, (int, float)) and 0 < step_timeout < float("inf")):
        raise ValueError(f"step_timeout must be a positive number of seconds or None, not {step_timeout!r}")
    given_profile, given_framework, given_envelope = profile, framework, envelope
    # A replay line names its operator where it is not the default: judged as it, unless step_fn names its own.
    op = operator_of(step_fn, op or (None if getattr(step_fn, "kda_op", None) else _operators.of_line(config)))
    if framework is None:
        framework = "numpy" if device in (None, "cpu") else "torch"
    profile = _profile_code(profile if profile is not None else getattr(step_fn, "kda_profile", defaults()["profile"]))
    envelope = envelope or getattr(step_fn, "kda_envelope", None) or Envelope()
    pin = pin if pin is not None else getattr(step_fn, "kda_pin", None)
    name = name or getattr(step_fn, "__qualname__", None) or type(step_fn).__name__
    plugin = CallablePlugin(step_fn, name, envelope, profile, framework, device, op, step_timeout)
    given = {"probe_invalid_indices": probe_invalid_indices or None, "model": model,
             "op": op if op != _operators.default() else None, "profile": given_profile, "device": device if device != "cpu" else None,
             "framework": given_framework, "envelope": given_envelope, "restrict": restrict, "work_budget": work_budget,
             "pin": pin if pin != getattr(step_fn, "kda_pin", None) else None}
    restriction = ctypes.pointer(restrict.to_c()) if restrict is not None else None
    function = callable_expression(step_fn)

    def options(suite, first, count):
        return _abi.KdaCheckOptions(suites=suite.encode(), seed=seed, first=first, count=count,
                                    work_budget=work_budget or 0.0, profile=-1,
                                    config=config.encode() if config else None, restriction=restriction,
                                    probe_invalid_rows=int(bool(probe_invalid_indices)),
                                    model=model.encode() if model else None, pin=pin.encode() if pin else None)

    # One C call per case, so that the traceback of an exception step_fn raised belongs to its case.
    if config:
        runs = [options(",".join(suite_names(suites)) if suites else "", 0, 0)]
    else:
        names = suite_names(suites)  # a bad name is a ValueError before anything runs
        # made one at a time: n may be millions (a list of them took gigabytes before case 0)
        counts = {s: n if given_n is not None else defaults()["suite_cases"][op][s] for s in names}
        runs = (options(suite, i, 1) for suite in names for i in range(first, first + counts[suite]))
    results, backend_name, profile_code, claims = [], name, profile, ""
    def crashed(run, why):  # the report of a case whose child died
        suite = run.suites.decode() or "kernel"
        index = run.first if not config else -1
        replay = config or _case_line(plugin, run)
        return {"plugin": backend_name, "profile": profile_code,
                "cases": [{"suite": suite, "index": index, "pass": False, "replay": replay, "detail": why}]}

    with _ctrl_c_deferred(plugin):
        for run in runs:
            plugin.tracebacks = []
            if isolate:
                data, why = _isolate.run_forked(lambda: {**_run(plugin, run), "tracebacks": plugin.tracebacks},
                                                case_timeout, lambda: plugin.interrupt is not None)
                if why:
                    data = crashed(run, why)
                elif "error" in data:
                    # Ctrl-C is passed on to the child: the run stops as it would without isolate.
                    if plugin.interrupt is not None or data.get("interrupted"):
                        raise plugin.interrupt or KeyboardInterrupt()
                    raise HarnessError(data["error"])
                plugin.tracebacks = data.get("tracebacks", [])
            else:
                data = _run(plugin, run)
            backend_name, profile_code = data["plugin"], data["profile"]
            claims = data.get("invalid_rows", claims)
            for c in data["cases"]:
                result = CaseResult(c["suite"], c["index"], c["pass"], c["replay"], c["detail"], op=op,
                                    skipped=c.get("skipped", False), cause=c.get("cause", ""))
                if not result.passed:
                    result.rerun = rerun_call(function, result.suite, result.index, seed, result.replay, given)
                    result.traceback = plugin.tracebacks[0] if plugin.tracebacks else ""
                results.append(result)
    report = CheckReport(backend_name, profile_code, results, claims)
    if shrink and not isolate and not config:
        with _ctrl_c_deferred(plugin):
            for suite, _, cases in report.failure_groups()[:SHRUNK_GROUPS]:
                first = cases[0]
                if suite in ("kernel", "kernel-truth") and " | " not in first.replay:
                    first.shrunk = _shrink(plugin, options(suite, 0, 0), first.replay)
                    if first.shrunk:
                        first.shrunk_rerun = rerun_call(function, suite, first.index, seed, first.shrunk, given)
    if time and not config:
        with _ctrl_c_deferred(plugin):
            report.timing = _time(plugin)
    return report


# As many causes as `kda-harness check` shrinks per run (tools/check_shrink.cpp shows five per suite).
SHRUNK_GROUPS = 5


def _shrink(plugin, options, line):
    """kda_shrink_case: the smallest config line that still fails of the case's cause, or ""."""
    lib, err, needed = _lib.lib(), _abi.KdaError(), ctypes.c_size_t(0)
    options.config = line.encode()
    out = ctypes.create_string_buffer(1 << 12)
    status = lib.kda_shrink_case(ctypes.byref(plugin.struct), ctypes.byref(options), out, len(out), ctypes.byref(needed),
                                 ctypes.byref(err))
    plugin.tracebacks = []  # the reruns' own, not the case's
    if plugin.interrupt is not None:
        raise plugin.interrupt
    _status.raise_for(status, err)
    return out.value.decode()


def _time(plugin):
    """kda_time_plugin: the plugin's step timed per shape class, as JSON."""
    lib, err, needed = _lib.lib(), _abi.KdaError(), ctypes.c_size_t(0)
    report = ctypes.create_string_buffer(1 << 16)
    status = lib.kda_time_plugin(ctypes.byref(plugin.struct), report, len(report), ctypes.byref(needed), ctypes.byref(err))
    if plugin.interrupt is not None:
        raise plugin.interrupt
    _status.raise_for(status, err)
    return json.loads(report.value.decode())


def suite_case_line(suite, index, seed=None, op=None, envelope=None, restrict=None, work_budget=None, model=None,
                    pin=None):
    """The replay line of case `index` of `suite` (one of suites()) as check() with these
    arguments draws it, without running anything: its config line, then " | " and what the
    case does to the call where it changes it (an error input, a call outside the envelope, an
    invalid row)."""
    op = _operators.resolve(op)
    seed = defaults()["seed"] if seed is None else seed
    plugin = CallablePlugin(None, "planned", envelope or Envelope(), _abi.PROFILES["helion"], "numpy", None, op)
    options = _abi.KdaCheckOptions(suites=",".join(suite_names(suite)).encode(), seed=_abi.checked_seed(seed), first=index, count=1,
                                   work_budget=work_budget or 0.0, profile=-1, config=None,
                                   restriction=ctypes.pointer(restrict.to_c()) if restrict is not None else None,
                                   model=model.encode() if model else None, pin=pin.encode() if pin else None)
    return _case_line(plugin, options)


def _case_line(plugin, options):
    """The replay line of the one case `options` name, without running it."""
    lib, err, needed = _lib.lib(), _abi.KdaError(), ctypes.c_size_t(0)
    line = ctypes.create_string_buffer(4096)
    status = lib.kda_check_case_line(ctypes.byref(plugin.struct), ctypes.byref(options), line, len(line),
                                     ctypes.byref(needed), ctypes.byref(err))
    if status == _abi.BUFFER_TOO_SMALL:
        line = ctypes.create_string_buffer(needed.value)
        status = lib.kda_check_case_line(ctypes.byref(plugin.struct), ctypes.byref(options), line, len(line),
                                         ctypes.byref(needed), ctypes.byref(err))
    _status.raise_for(status, err)
    return line.value.decode()


def _run(plugin, options):
    """kda_check_plugin on one set of options: its JSON report."""
    lib, err, needed = _lib.lib(), _abi.KdaError(), ctypes.c_size_t(0)
    report = ctypes.create_string_buffer(1 << 20)
    status = lib.kda_check_plugin(ctypes.byref(plugin.struct), ctypes.byref(options), report, len(report),
                                  ctypes.byref(needed), ctypes.byref(err))
    if plugin.interrupt is not None:
        raise plugin.interrupt
    if status == _abi.BUFFER_TOO_SMALL:  # asking again would run the cases again (the C library bounds a case's report)
        raise HarnessError(f"the report of {options.count} case(s) is {needed.value} bytes, over the "
                           f"{len(report)}-byte buffer")
    _status.raise_for(status, err)
    return json.loads(report.value.decode())
