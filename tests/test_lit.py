"""The lit + FileCheck suite in tests/lit, run by pytest: one pytest test per lit test.

lit lists the suite when this module is collected, and runs the selected tests once, in
parallel, when the first of them runs; each pytest test then reports its lit test's result,
with lit's output (the RUN lines, what they printed, FileCheck's complaint) when it fails.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

LIT_DIR = Path(__file__).parent / "lit"
# The lit package has no __main__, so `python -m lit` does not work; this is its `lit` script.
LIT = [sys.executable, "-c", "import lit.main; lit.main.main()"]


def _discover() -> tuple[list[str], str]:
    """The suite's tests as lit names them below the suite (``tools/stdin.mlir``), and
    lit's output, which says why when it finds none."""
    listing = subprocess.run(
        [*LIT, "--show-tests", str(LIT_DIR)], capture_output=True, text=True, check=False
    )
    names = [line.split(" :: ", 1)[1] for line in listing.stdout.splitlines() if " :: " in line]
    return names, listing.stdout + listing.stderr


LIT_TESTS, DISCOVERY_OUTPUT = _discover()


def test_lit_found_tests():
    """An empty or broken suite must fail, not pass by having nothing to run."""
    assert LIT_TESTS, f"lit found no tests in {LIT_DIR}:\n{DISCOVERY_OUTPUT}"


@pytest.fixture(scope="module")
def lit_results(request: pytest.FixtureRequest, tmp_path_factory) -> dict[str, dict]:
    """Run the lit tests pytest selected (all, unless -k chose some) in one lit process."""
    selected = [
        item.callspec.params["lit_test"]
        for item in request.session.items
        if getattr(item, "originalname", None) == "test_lit" and hasattr(item, "callspec")
    ]
    report = tmp_path_factory.mktemp("lit") / "results.json"
    only = "|".join(f" :: {re.escape(name)}$" for name in selected)
    command = [*LIT, "-s", "-o", str(report), "--filter", only, str(LIT_DIR)]
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    if not report.exists():
        pytest.fail(f"lit did not run: {' '.join(command)}\n{run.stdout}{run.stderr}")
    tests = json.loads(report.read_text())["tests"]
    return {test["name"].split(" :: ", 1)[1]: test for test in tests}


@pytest.mark.parametrize("lit_test", LIT_TESTS)
def test_lit(lit_test: str, lit_results: dict[str, dict]):
    """One lit test passed (or failed as its XFAIL said it would)."""
    result = lit_results.get(lit_test)
    assert result is not None, f"lit did not report on {lit_test}"
    if result["code"] == "UNSUPPORTED":
        pytest.skip(f"lit: {lit_test} is unsupported here")
    if result["code"] not in ("PASS", "FLAKYPASS", "XFAIL"):
        pytest.fail(f"lit {result['code']}: {lit_test}\n{result['output']}", pytrace=False)
