import json
import os
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def catalog():
    """The error catalog (contract/error_catalog.json) by id."""
    entries = json.loads((REPO / "contract" / "error_catalog.json").read_text())["entries"]
    return {e["id"]: e for e in entries}


@pytest.fixture(scope="module")
def cpu_plugin():
    """The CPU example plugin (ctest names it in KDA_CPU_PLUGIN), loaded as a callable."""
    import kda_harness

    path = os.environ.get("KDA_CPU_PLUGIN")
    if not path:
        pytest.skip("KDA_CPU_PLUGIN is not set (ctest sets it to the CPU example plugin, plugins/)")
    return kda_harness.load_plugin(path)
