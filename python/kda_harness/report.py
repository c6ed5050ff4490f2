"""What check() returns: each case's verdict with the lines that replay it. A failure prints
whole (str and repr alike): its message, first the line that reruns the caller's own kernel,
then the `kda-harness case` line that replays the case on the CPU reference, and the
traceback of an exception the kernel raised. raise_if_failed() raises all of it as one
AssertionError (pytest would cut `assert report.passed, report` at 240 characters)."""
import dataclasses
import json
import textwrap
import unittest
from dataclasses import dataclass, field


@dataclass(repr=False)
class CaseResult:
    suite: str
    index: int
    passed: bool
    replay: str  # the config line (`kda-harness case "<line>"`), plus " | " and what the case did to its call
    detail: str
    rerun: str = ""      # Python that reruns this case on the caller's kernel
    op: str = None       # the operator (None: the default operator)
    traceback: str = ""  # the kernel's own traceback when it raised during the case
    skipped: bool = False  # nothing to test (an envelope with nothing outside it): neither passed nor failed
    cause: str = ""        # a failure's cause, the same for failures of one kind (what reports group by)
    shrunk: str = ""       # the smallest config line that still fails of this cause (check's shrinking), if found
    shrunk_rerun: str = ""  # Python that reruns the shrunk case on the caller's kernel

    @property
    def config(self):
        """The case's config line (replay without what follows " | ")."""
        return self.replay.partition(" | ")[0]

    def reference_line(self):
        """The `kda-harness case` line that replays the case on the CPU reference."""
        line = f'kda-harness case "{self.config}"'
        _, _, call = self.replay.partition(" | ")
        if not call:
            return line
        if call.startswith("error input "):
            return f"{line}  (the valid case that {call} breaks)"
        return f"{line}  ({call})"

    def replay_lines(self):
        """First the line that reruns the caller's kernel, then the CPU reference's."""
        return [line for line in (self.rerun, self.reference_line()) if line]

    def __str__(self):
        verdict = "skipped" if self.skipped else "pass" if self.passed else "FAIL"
        text = f"[{self.suite} {self.index}] {verdict}: {self.detail}"
        labels = ["rerun on your kernel:", "replay on the CPU reference:"] if self.rerun else \
            ["replay on the CPU reference:"]
        text += "".join(f"\n    {label} {line}" for label, line in zip(labels, self.replay_lines()))
        if self.shrunk:
            text += f"\n    shrunk (the smallest case that still fails so): {self.shrunk_rerun or self.shrunk}"
            text += f'\n    shrunk on the CPU reference: kda-harness case "{self.shrunk}"'
        if self.traceback:
            text += "\n    the kernel raised:\n" + textwrap.indent(self.traceback.rstrip("\n"), "      ")
        return text

    __repr__ = __str__


@dataclass(repr=False)
class CheckReport:
    backend: str
    profile: int
    cases: list = field(default_factory=list)
    claims: str = ""  # what the kernel claims of runtime-invalid rows, and what of it was tested
    # check(time=True): the step timed per shape class (the C library's kda_time_plugin JSON:
    # "backend", "clock", "copy_gbps", "classes"); None when not timed. It decides nothing.
    timing: dict = None

    @property
    def failures(self):
        return [c for c in self.cases if not c.passed]

    @property
    def judged(self):
        """How many cases were judged (passed or failed): none where every case was skipped."""
        return sum(not c.skipped for c in self.cases)

    @property
    def passed(self):
        """Every case passed, and one was judged at least: a report of no case, or of skipped
        cases only, verified nothing."""
        return self.judged > 0 and not self.failures

    def raise_if_failed(self):
        """Raises AssertionError with the report (str(): the suites' counts, each cause of
        failure with its count and its first failure's message, replay lines and traceback) if
        any case failed or there was none; unittest.SkipTest (pytest and unittest report the
        test as skipped, with the reason) if every case was skipped; returns the report
        otherwise."""
        __tracebackhide__ = True  # pytest shows the caller's line, not this frame and its `self` cut short
        if self.cases and not self.failures and not self.judged:
            raise unittest.SkipTest(f"nothing judged: {str(self)}")
        if not self.passed:
            raise AssertionError(str(self))
        return self

    def failure_groups(self):
        """The failures grouped by suite and cause, in the order each first failed: a list of
        (suite, cause, [CaseResult, ...])."""
        groups = {}
        for c in self.failures:
            groups.setdefault((c.suite, c.cause), []).append(c)
        return [(suite, cause, cases) for (suite, cause), cases in groups.items()]

    def __str__(self):
        """A line per suite (cases, passed, failed, skipped), the claims, then each cause of
        failure with its count and its first failure in full (every failure: `failures`)."""
        skipped = [c for c in self.cases if c.skipped]
        passed = len(self.cases) - len(self.failures) - len(skipped)
        lines = [f"{self.backend}: {passed} passed, {len(self.failures)} failed" +
                 (f", {len(skipped)} skipped ({skipped[0].suite}: {skipped[0].detail})" if skipped else "") +
                 ("; nothing judged" if not self.judged else "")]
        for suite in dict.fromkeys(c.suite for c in self.cases):
            of = [c for c in self.cases if c.suite == suite]
            failed = sum(not c.passed for c in of)
            skip = sum(c.skipped for c in of)
            lines.append(f"  {suite}: {len(of)} cases, {len(of) - failed - skip} passed, {failed} failed" +
                         (f", {skip} skipped" if skip else ""))
        if self.claims:
            lines.append(f"invalid rows: {self.claims}")
        if self.timing:
            lines.append(timing_text(self.timing))
        for suite, cause, cases in self.failure_groups():
            lines.append(f"[{suite}] {len(cases)} failed case(s) of one cause: {cause or 'failed'}" +
                         (" (the first below; the others: report.failures)" if len(cases) > 1 else ""))
            lines.append(str(cases[0]))
        return "\n".join(lines)

    __repr__ = __str__


def timing_text(t):
    """The timing as `kda-harness check --time` prints it: a line per shape class."""
    lines = [f"time: {t['backend']} per step, {t['clock'] or 'not timed'} (median of the runs); a plain copy "
             f"{t['copy_gbps']:.1f} GB/s (read + written); bytes by the benchmark's model; the same inputs every run, so a "
             f"class that fits in a cache runs from it; timing decides nothing"]
    for c in t["classes"]:
        if "problem" in c:
            lines.append(f"  {c['class']:<22} not timed: {c['problem']}")
        else:
            lines.append(f"  {c['class']:<22} median {c['median_us']:.1f} us ({c['p10_us']:.1f}..{c['p90_us']:.1f}, "
                         f"{c['runs']} runs), {c['bytes'] / 1e6:.3f} MB/step, {c['gbps']:.1f} GB/s, "
                         f"{100 * c['copy_fraction']:.1f}% of the copy")
    return "\n".join(lines)


def callable_expression(step_fn):
    """Python that names step_fn again in the caller's code: module.qualname for a function
    of a module, load_plugin("PATH") for a plugin library, else "step_fn"."""
    path = getattr(step_fn, "path", None)
    if path is not None and hasattr(step_fn, "plugin"):
        return f"kda_harness.load_plugin({_python(str(path))})"
    qualname = getattr(step_fn, "__qualname__", "")
    if not qualname or not all(part.isidentifier() for part in qualname.split(".")):
        return "step_fn"
    module = getattr(step_fn, "__module__", None)
    return qualname if module in (None, "__main__") else f"{module}.{qualname}"


def rerun_call(function, suite, index, seed, replay, given):
    """kda_harness.check(...) that reruns one case: a kernel or kernel-truth case that is its
    config's rollout by its config line (its replay) and suite, any other by suite, seed and index; `given`: the caller's
    other keyword arguments that change the case or its judgement (op, profile, device,
    framework, envelope, restrict, work_budget, model, pin), by name."""
    by_config = suite in ("kernel", "kernel-truth") and " | " not in replay
    args = ([f"config={_python(replay)}"] + ([f"suites={_python(suite)}"] if suite == "kernel-truth" else [])) \
        if by_config else [f"suites={_python(suite)}", f"seed={seed}", f"first={index}", "n=1"]
    for name, value in given.items():
        if value is None or (by_config and name in ("envelope", "restrict", "work_budget", "model", "pin")):
            continue  # a config line is the case itself: no envelope, restriction or budget draws it
        text = _python(value)
        args.append(f"{name}=kda_harness.{text}" if name in ("envelope", "restrict") else f"{name}={text}")
    return f"kda_harness.check({function}, {', '.join(args)})"


def _python(value):
    """A value as Python source; strings in double quotes, as a shell line quotes them too; a
    dataclass (an Envelope) by the fields that differ from their defaults."""
    if isinstance(value, str):
        return json.dumps(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changed = [f"{f.name}={getattr(value, f.name)!r}" for f in dataclasses.fields(value)
                   if f.default is dataclasses.MISSING or getattr(value, f.name) != f.default]
        return f"{type(value).__name__}({', '.join(changed)})"
    return repr(value)
