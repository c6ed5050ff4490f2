import json
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def catalog():
    """The error catalog (contract/error_catalog.json) by id."""
    entries = json.loads((REPO / "contract" / "error_catalog.json").read_text())["entries"]
    return {e["id"]: e for e in entries}
