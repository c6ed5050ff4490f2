"""The package's version: the CMake project's (CMakeLists.txt), its one source. A wheel carries
it in _build_info.py (written by its build); imported from the source tree, it is read from
the tree's CMakeLists.txt."""
import re
from pathlib import Path


def version():
    try:
        from ._build_info import VERSION
    except ImportError:
        text = (Path(__file__).resolve().parents[2] / "CMakeLists.txt").read_text(encoding="utf-8")
        return re.search(r"project\(kda_replayssm_harness VERSION ([0-9.]+)", text).group(1)
    return VERSION
