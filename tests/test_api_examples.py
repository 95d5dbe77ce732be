"""Every example of examples/*.mlir, built from Python in both styles, is that IR.

examples/<name>.py builds the example twice — ``functional()`` with the combinators and
lambdas, ``decorator()`` with ``@workload`` functions and ``P`` loops — and each module
must be structurally equivalent to the parsed examples/<name>.mlir (equal modulo SSA
names). Running the example file prints the IR.
"""

from __future__ import annotations

import difflib
import importlib.util
import re
import subprocess
import sys
from io import StringIO
from pathlib import Path
from types import ModuleType

import pytest
from xdsl.context import Context
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.parser import Parser
from xdsl.printer import Printer

from pto_wsp.dialects.csp import CSP
from pto_wsp.dialects.sched import SCHED
from pto_wsp.dialects.wsp import WSP

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
NAMES = sorted(p.stem for p in EXAMPLES.glob("*.mlir"))


def parse_example(name: str) -> ModuleOp:
    """The hand-written example, parsed."""
    ctx = Context()
    for dialect in (Builtin, arith.Arith, memref.MemRef, WSP, CSP, SCHED):
        ctx.load_dialect(dialect)
    return Parser(ctx, (EXAMPLES / f"{name}.mlir").read_text()).parse_module()


def load_example(name: str) -> ModuleType:
    """examples/<name>.py as a module."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def normalized(module: ModuleOp) -> list[str]:
    """The printed module with SSA names numbered in order of appearance."""
    out = StringIO()
    Printer(stream=out).print_op(module)
    names: dict[str, str] = {}

    def rename(match: re.Match[str]) -> str:
        return names.setdefault(match.group(0), f"%v{len(names)}")

    return [re.sub(r"%[\w.$-]+", rename, line) for line in out.getvalue().splitlines()]


def assert_same_ir(built: ModuleOp, expected: ModuleOp, label: str) -> None:
    """Structurally equal; else fail with a diff of the SSA-normalized texts."""
    if built.is_structurally_equivalent(expected):
        return
    diff = "\n".join(
        difflib.unified_diff(
            normalized(expected), normalized(built), "expected", label, lineterm=""
        )
    )
    pytest.fail(f"{label} differs from the example:\n{diff or '(texts equal; structure differs)'}")


def test_every_example_has_a_python_twin():
    assert NAMES, "no examples found"
    missing = [n for n in NAMES if not (EXAMPLES / f"{n}.py").exists()]
    assert not missing, f"examples without a .py: {missing}"


@pytest.mark.parametrize("style", ["functional", "decorator"])
@pytest.mark.parametrize("name", NAMES)
def test_example_built_from_python(name: str, style: str):
    example = load_example(name)
    built = getattr(example, style)()
    built.verify()
    assert_same_ir(built, parse_example(name), f"{name}.py:{style}")


@pytest.mark.parametrize("name", NAMES)
def test_both_styles_print_the_same_text(name: str):
    """Not only equivalent: the two styles give the same printed IR, SSA names included."""
    example = load_example(name)
    assert str(example.functional()) == str(example.decorator())


@pytest.mark.parametrize("name", NAMES)
def test_running_the_example_prints_its_ir(name: str):
    run = subprocess.run(
        [sys.executable, str(EXAMPLES / f"{name}.py")], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    ctx = Context()
    for dialect in (Builtin, arith.Arith, memref.MemRef, WSP, CSP, SCHED):
        ctx.load_dialect(dialect)
    printed = Parser(ctx, run.stdout).parse_module()
    assert_same_ir(printed, parse_example(name), f"python examples/{name}.py")
