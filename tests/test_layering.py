"""Imports run down the layers only (DESIGN.md "Layers, no back edges").

dialects <- passes <- lowering <- runtime, with the frontend, interop and tools on top; the shared
errors (pto_wsp/errors.py) at the bottom. A backend imports no other backend's internals. Every
import of every module is read with ``ast`` (function-level imports too); an edge that runs
backwards fails unless ``ALLOWED`` names it, with the reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Folder of the checkout -> its package (pyproject's package-dir).
PACKAGES = {
    "pto_wsp": "pto_wsp",
    "dialects": "pto_wsp.dialects",
    "passes": "pto_wsp.passes",
    "lowering": "pto_wsp.lowering",
    "runtime": "pto_wsp.runtime",
    "interop": "pto_wsp.interop",
    "tools": "pto_wsp.tools",
}

#: Rank of each layer: a module may import its own rank and below.
LAYERS = {
    "pto_wsp.errors": 0,
    "pto_wsp.dialects": 1,
    "pto_wsp.passes": 2,
    "pto_wsp.lowering": 3,
    "pto_wsp.runtime": 4,
    # The frontend builds IR and runs Programs; interop reads and writes other formats of the
    # IR; universe registers passes and targets with xdsl-opt: all users of the layers below.
    "pto_wsp.frontend": 5,
    "pto_wsp.interop": 5,
    "pto_wsp.universe": 5,
    "pto_wsp.tools": 6,
    "pto_wsp": 6,  # the package's __init__: the public API
}

#: The backends: none imports another's modules (lowering/targets.py is their shared registry).
BACKENDS = ("pto_wsp.lowering.aie", "pto_wsp.lowering.ascend", "pto_wsp.lowering.cpu")

#: (importing module or package prefix, imported module or prefix) -> why the edge is allowed.
ALLOWED = {
    # The CPU backend's product is the simulator's Program: lowering/cpu is the runtime's own
    # front end (DESIGN.md: "lowering/cpu (tg -> executable plan)").
    ("pto_wsp.lowering.cpu", "pto_wsp.runtime"): "the CPU backend builds runtime Programs",
}


def _modules() -> list[tuple[str, Path]]:
    found = []
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found.append((".".join([package, *parts]), path))
    return found


MODULES = _modules()
NAMES = {name for name, _ in MODULES}


def _imports(name: str, path: Path) -> list[tuple[str, int]]:
    """Every pto_wsp module ``name`` imports, with the line (relative imports resolved)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                head = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*head, *([node.module] if node.module else [])])
            for alias in node.names:
                # ``from pto_wsp import errors`` imports a module; ``from x import name`` x.
                sub = f"{base}.{alias.name}"
                found.append((sub if sub in NAMES else base, node.lineno))
    return [(target, line) for target, line in found if target.split(".")[0] == "pto_wsp"]


def _rank(module: str) -> int:
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return LAYERS[best]


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _allowed(source: str, target: str) -> bool:
    return any(_within(source, s) and _within(target, t) for s, t in ALLOWED)


def _backend(module: str) -> str | None:
    return next((b for b in BACKENDS if _within(module, b)), None)


def back_edges() -> list[str]:
    """Every import that runs backwards and is not allowed, as 'file:line: a -> b'."""
    bad = []
    for name, path in MODULES:
        for target, line in _imports(name, path):
            backwards = _rank(target) > _rank(name)
            crossing = _backend(name) and _backend(target) not in (None, _backend(name))
            if (backwards or crossing) and not _allowed(name, target):
                where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                bad.append(f"{where}:{line}: {name} -> {target}")
    return bad


def test_every_module_is_read():
    assert len(MODULES) > 80
    assert {"pto_wsp.passes.wsp_to_tg", "pto_wsp.lowering.cpu.native", "pto_wsp.errors"} <= NAMES


def test_no_import_runs_backwards():
    bad = back_edges()
    assert not bad, "imports against the layers:\n" + "\n".join(bad)


def test_every_allowance_is_still_used():
    """An allowance whose edge is gone is deleted (so the TODOs show what remains)."""
    used = set()
    for name, path in MODULES:
        for target, _ in _imports(name, path):
            used |= {(s, t) for s, t in ALLOWED if _within(name, s) and _within(target, t)}
    assert set(ALLOWED) - used == set()


def test_a_back_edge_is_found(tmp_path, monkeypatch):
    """The checker sees a function-level import that runs backwards."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from pto_wsp.frontend import program\n")
    monkeypatch.setattr(__name__ + ".MODULES", [("pto_wsp.passes.bad", bad)])
    assert back_edges() == [f"{bad}:2: pto_wsp.passes.bad -> pto_wsp.frontend.program"]


def test_the_errors_module_imports_nothing_of_pto_wsp():
    path = ROOT / "pto_wsp" / "errors.py"
    assert _imports("pto_wsp.errors", path) == []


def test_native_errors_are_of_the_one_family():
    from pto_wsp.errors import CompileError, ErrorCode, PtoError
    from pto_wsp.lowering.cpu.native import NativeError
    from pto_wsp.runtime.native_core import NativeCoreError

    error = NativeError("@p needs a value for n")
    assert isinstance(error, CompileError) and isinstance(error, ValueError)
    assert (str(error), error.code) == ("@p needs a value for n", ErrorCode.INVALID_WORKLOAD)
    assert issubclass(NativeCoreError, PtoError)
    assert NativeCoreError.code == ErrorCode.RESOURCE_NOT_AVAILABLE
