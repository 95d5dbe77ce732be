"""Parsing bad input never hangs: an unclosed string literal is an error at its quote at once.

xDSL's lexer alone backtracks exponentially over the rest of such a line (about 2^n steps for
n characters); ``pto_wsp.dialects.xdsl_workarounds`` replaces its pattern. Each case runs in a
subprocess whose ``timeout`` stands for "it hangs": without the workaround the 200 characters
after the quote would take longer than the universe's age.
"""

import random
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from xdsl.utils.mlir_lexer import MLIRLexer

from pto_wsp.dialects import xdsl_workarounds  # noqa: F401 - the patch under test

#: Seconds after which a run counts as hung (a run takes about one, to start Python).
HUNG = 60

ARGS = ", ".join(f"%a{i}: index" for i in range(20))
MLIR = f'func.func @f(%Q: memref<"?x32768x64xf32>, {ARGS}) {{\n  func.return\n}}\n'
PTO = (
    "// PTO Module: m\n// Version: 9.0\n// Target: cpu_sim\n"
    f'@workload w(%Q: memref<"?x32768x64xf32>, {ARGS}) {{\n}}\n'
)


def _tool(name: str) -> str:
    found = shutil.which(name, path=sysconfig.get_path("scripts")) or shutil.which(name)
    assert found is not None, f"{name} is not installed"
    return found


@pytest.mark.parametrize("tool", ["pto-opt", "pto-run"])
def test_unclosed_string_in_mlir_is_a_located_error(tool: str, tmp_path: Path) -> None:
    path = tmp_path / "in.mlir"
    path.write_text(MLIR)
    run = subprocess.run(
        [_tool(tool), str(path)], capture_output=True, text=True, timeout=HUNG, check=False
    )
    assert run.returncode == 1
    assert f"{path}:1:25: error: End of file reached before closing string literal." in run.stderr
    assert "Traceback" not in run.stderr


def test_unclosed_string_in_pto_is_a_located_error(tmp_path: Path) -> None:
    """The .pto reader, through the Python API alone (no command-line tool imported)."""
    path = tmp_path / "in.pto"
    path.write_text(PTO)
    script = (
        "import sys\n"
        "from pto_wsp.interop.pto_parser import PtoParseError, from_file\n"
        "try:\n"
        "    from_file(sys.argv[1])\n"
        "except PtoParseError as e:\n"
        "    print(e.line, e.column, e.message)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        capture_output=True,
        text=True,
        timeout=HUNG,
        check=False,
    )
    assert run.stdout == "4 24 End of file reached before closing string literal.\n", run.stderr


def test_string_pattern_matches_what_xdsl_matches() -> None:
    """The replacement pattern accepts exactly the strings xDSL's own does, and no more."""
    original = re.compile(r'"(?:[^"\\\n\v\f]+|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')
    patched = MLIRLexer._unescaped_characters_regex  # pyright: ignore[reportPrivateUsage]
    assert patched.pattern != original.pattern
    alphabet = '"\\\nnt\vA0f x'
    generator = random.Random(21)
    for _ in range(20_000):
        text = '"' + "".join(generator.choice(alphabet) for _ in range(generator.randint(0, 10)))
        want, got = original.match(text), patched.match(text)
        assert (want and want.group()) == (got and got.group()), repr(text)
