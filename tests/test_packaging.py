"""The package layout of DESIGN.md: top-level folders importable as pto_wsp.*, plugin registered."""

import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.universe import Universe

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("folder", ["dialects", "passes", "lowering", "runtime", "tools"])
def test_top_level_folder_is_a_subpackage(folder: str):
    """An editable install maps dialects/ to pto_wsp.dialects etc., so edits are picked up."""
    module = __import__(f"pto_wsp.{folder}", fromlist=["_"])
    assert Path(module.__file__).resolve().parent == REPO / folder


def test_xdsl_universe_has_our_dialects_and_passes():
    universe = Universe.get_multiverse()
    for dialect in ("wsp", "csp", "sched", "tg"):
        assert universe.all_dialects[dialect]().name == dialect
    for name in ("wsp-canonicalize", "wsp-inline-calls", "wsp-to-tg", "tg-materialize"):
        assert universe.all_passes[name]().name == name


def test_plain_xdsl_opt_knows_our_dialects_and_passes():
    example = REPO / "examples" / "three_stage.mlir"
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "from xdsl.tools.xdsl_opt import main; main()",
            str(example),
            "-p",
            "wsp-canonicalize",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "wsp.sequential {" in result.stdout
    assert result.stdout.count("wsp.task @") == 3
