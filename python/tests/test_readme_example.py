"""The README's Python example, run in a child pytest on a numpy kernel with two planted bugs
(the bounded gate without its decay rate A, and a NotImplementedError on float16 outputs): it
must print each failing case whole, first the line that reruns it on the kernel, then the CPU
reference's replay line, and the kernel's own traceback; nothing cut. The example runs on the
host (device="cpu": numpy arrays) and on fewer cases than it shows, to keep the test short."""
import re
from pathlib import Path

import numpy as np

import kda_harness
import numpy_step

HERE = Path(__file__).resolve().parent
README = HERE.parents[1] / "README.md"
N = 8

MY_KERNELS = '''
import numpy as np
import kda_harness
import numpy_step


def my_replayssm_decode(**kw):
    kda_harness.validate(**kw)
    # What the example's envelope leaves out is refused, as a kernel declaring it must.
    compact = all(t.flags.c_contiguous for t in kw.values() if isinstance(t, np.ndarray))
    if kw["initial_state"].shape[-1] < 32 or kw["ssm_state_indices"].dtype != np.int32 or not compact:
        raise ValueError("outside this kernel's envelope")
    if kw["out"].dtype == np.float16:
        raise NotImplementedError("float16 outputs are not written yet")
    numpy_step.replayssm_step_planted_bug(**kw)
'''


def readme_example():
    """The README's first Python block, on the host and with N cases."""
    block = re.search(r"```python\n(.*?)```", README.read_text(), re.S).group(1)
    assert "from my_kernels import my_replayssm_decode" in block and "report.raise_if_failed()" in block
    host = block.replace('device="cuda"', 'device="cpu"')
    # Not shrunk: its reruns of a numpy step at the model's shapes take minutes (test_check.py
    # tests shrinking); what this test reads is each failure printed whole.
    assert host.count('model="kimi-linear-48b:tp=2")') == 1
    host = host.replace('model="kimi-linear-48b:tp=2")', 'model="kimi-linear-48b:tp=2", shrink=False)')
    return re.sub(r"\bn=\d+", f"n={N}", host)


def test_the_readme_example_prints_each_failure_whole(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(HERE) + ":" + str(HERE.parent))
    pytester.makepyfile(my_kernels=MY_KERNELS, test_example=readme_example())
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    failures = output[output.index("= FAILURES ="):output.index("short test summary info")]
    assert "..." not in failures  # nothing cut (pytest's one-line summary below is its own)
    # Counted in the FAILURES section: under CI=true pytest repeats the whole message in its summary.
    reruns = re.findall(r"rerun on your kernel: (kda_harness\.check\(my_kernels\.my_replayssm_decode, .*\))$", failures,
                        re.M)
    references = re.findall(r"replay on the CPU reference: (kda-harness case \".*)$", failures, re.M)
    assert reruns and len(references) == len(reruns)
    failed = re.findall(r"^E\s+\[([\w-]+) (\d+)\] FAIL: ", output, re.M)
    assert len(failed) == len(reruns)
    # Both planted bugs show: the kernel's traceback where it raised, the gate's numbers elsewhere.
    assert "NotImplementedError: float16 outputs are not written yet" in output
    assert re.search(r"the kernel raised:\s*\nE\s+Traceback \(most recent call last\):", output)
    assert re.search(r'my_kernels\.py", line \d+, in my_replayssm_decode\nE\s+raise NotImplementedError', output)
    assert "Mismatched blocks: " in output
    # The first line reruns the case on the kernel as shown; it fails there again.
    import sys
    sys.path.insert(0, str(pytester.path))
    try:
        import my_kernels
        again = eval(reruns[0], {"kda_harness": kda_harness, "my_kernels": my_kernels})
    finally:
        sys.path.remove(str(pytester.path))
    assert not again.passed and len(again.cases) == 1
