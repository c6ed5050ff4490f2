"""The torch path: torch tensors on the caller's device, through DLPack. On the CPU with the
reference plugin where torch is installed; on a GPU with our CUDA kernel as a plugin
(KDA_CUDA_PLUGIN, set by ctest in CUDA builds): it passes check, and a wrapper corrupting one
row fails."""
import os
import re

import numpy as np
import pytest

import kda_harness
from wrappers import corrupting_one_row, writing_before

torch = pytest.importorskip("torch", reason="torch is not installed: the torch path is tested where it is")


def test_cases_as_torch_tensors_match_the_numpy_ones():
    for as_numpy, as_torch in zip(kda_harness.cases(n=4, seed=8), kda_harness.cases(n=4, seed=8, framework="torch")):
        for name, t in as_torch.tensors.items():
            ref = as_numpy.tensors[name]
            assert tuple(t.shape) == ref.shape
            assert tuple(t.stride()) == tuple(s // ref.itemsize for s in ref.strides)
            as_float = t.float() if t.dtype == torch.bfloat16 else t
            np.testing.assert_array_equal(as_float.numpy(), np.asarray(ref, np.float64 if t.is_floating_point() else None))


def test_torch_cpu_tensors_through_a_host_plugin(cpu_plugin):
    report = kda_harness.check(cpu_plugin, framework="torch", device="cpu", n=8, seed=3)
    assert report.passed, str(report)


def test_a_write_before_a_tensor_fails_the_case_naming_the_tensor(cpu_plugin):
    # The torch tensors lent to a step sit between guard regions that are checked after the call.
    report = kda_harness.check(writing_before(cpu_plugin, "initial_state"), framework="torch", device="cpu",
                               suites="kernel", n=3, seed=3)
    assert report.failures and len(report.failures) == len(report.cases), str(report)
    stray = re.compile(r"StrayWrite: the step wrote outside the tensors it was lent: initial_state: \d+ byte\(s\) "
                       r"in the \d+ before its first byte")
    assert all(stray.search(f.detail) for f in report.failures), str(report)


@pytest.fixture(scope="module")
def cuda_kernel():
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device: the kernel's torch path runs on a GPU machine")
    path = os.environ.get("KDA_CUDA_PLUGIN")
    if not path or not os.path.isfile(path):
        pytest.skip("KDA_CUDA_PLUGIN names no plugin library (a CUDA build's ctest sets it)")
    kernel = kda_harness.load_plugin(path)
    assert kernel.device_type == 2  # kDLCUDA
    return kernel


N_GPU = int(os.environ.get("KDA_PYTHON_GPU_CASES", "40"))


def test_the_cuda_kernel_passes_check_over_torch_cuda_tensors(cuda_kernel):
    report = kda_harness.check(cuda_kernel, device="cuda", suites=kda_harness.suites(), n=N_GPU, seed=3)
    assert report.passed, str(report)
    assert len(report.cases) == 4 * N_GPU


def test_a_wrapper_that_corrupts_one_row_of_the_kernel_fails(cuda_kernel):
    report = kda_harness.check(corrupting_one_row(cuda_kernel), device="cuda", suites="kernel", n=8, seed=3)
    # Every plain rollout fails at row 0 (a case that makes a row invalid may be refused whole,
    # the wrapper's write then never made).
    plain = {c.index for c in report.cases if " | " not in c.replay}
    assert plain and plain <= {f.index for f in report.failures}, str(report)
    assert all(re.search(r"\(token \d+ row 0[:,)]", f.detail) for f in report.failures)
