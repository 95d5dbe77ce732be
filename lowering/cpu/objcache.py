"""Compiled task-generation programs kept on disk: a fresh process skips upstream MLIR.

Upstream MLIR's parse, LLVM lowering and JIT cost tens of milliseconds a program, and importing
its bindings more. ``store`` writes the object code of a compiled program (the
ExecutionEngine's ``dump_to_object_file``, linked by the system linker against the native
core's library) as a shared library under ``$PTO_WSP_CACHE/programs/``; ``load`` finds it
again in a later process by the key of the program (its runtime-call IR text, the lowering
pipeline, the core's library, the installed MLIR and the CPU) and opens it with ctypes,
without importing ``mlir``. Each library has a digest beside it: a library that is missing,
half written or changed is not loaded (``load`` returns None and the caller compiles again).
``store_table`` and ``load_table`` keep, the same way, what a compile needs besides the code
(``KEY.json``, its digest inside): the cpu_sim backend's lowered program, keyed before
xDSL's passes run (lowering/cpu/lowered.py).
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import platform
import subprocess
import tempfile
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import xdsl

from pto_wsp.runtime.native_core import cache_root, library

#: How many compiled programs the cache keeps (the least recently written go first).
KEEP = 512


class Library:
    """A compiled program loaded from disk: ``lookup`` as ``ExecutionEngine.lookup`` does."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self._lib = lib

    def lookup(self, name: str) -> Any:
        """The packed entry point of ``name`` (its C interface taking an array of pointers)."""
        return ctypes.CFUNCTYPE(None, ctypes.c_void_p)(self.raw_lookup("_mlir_ciface_" + name))

    def raw_lookup(self, name: str) -> int:
        """The address of ``name``'s packed wrapper, as ``ExecutionEngine.raw_lookup``."""
        function = getattr(self._lib, "_mlir_" + name)
        return ctypes.cast(function, ctypes.c_void_p).value


def programs_dir() -> Path:
    """Where compiled programs are kept: ``$PTO_WSP_CACHE/programs``."""
    return cache_root() / "programs"


@cache
def _environment(core: bool = True) -> bytes:
    """What besides the IR decides the code: the core's library (its name holds the core's
    key) when the code calls it, the installed MLIR's libraries and the CPU the JIT compiled
    for."""
    parts = [str(library()) if core else "", platform.machine()]
    spec = find_spec("mlir")  # finds the package without importing it
    folders = (spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        libs = Path(folder, "_mlir_libs")
        for lib in [libs / "libMLIRPythonCAPI.so", *sorted(libs.glob("_mlirExecutionEngine*"))]:
            if lib.exists():
                stat = lib.stat()
                parts.append(f"{lib}:{stat.st_size}:{stat.st_mtime_ns}")
    parts.append(_cpu_flags())
    return "\0".join(parts).encode()


def _cpu_flags() -> str:
    try:
        with open("/proc/cpuinfo") as info:
            return next((line for line in info if line.startswith("flags")), "")
    except OSError:
        return ""


def key(text: str, salt: str, core: bool = True) -> str:
    """The cache key of the runtime-call form ``text`` compiled as ``salt`` says (``core``:
    whether the code calls the native core, as programs do and tile kernels do not)."""
    h = hashlib.sha256(_environment(core))
    h.update(b"\0" + salt.encode() + b"\0" + text.encode())
    return h.hexdigest()[:32]


@cache
def compiler() -> str:
    """A digest of what turns a module into a compiled program besides upstream MLIR.

    The source files of the dialects, the passes and the CPU lowering, and the installed xDSL
    (as the MLIR libraries in ``_environment``: its files' place, size and date; asking its
    version costs more than the rest together)."""
    stat = Path(xdsl.__file__).stat()
    h = hashlib.sha256(f"{xdsl.__file__}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    for package in ("pto_wsp.dialects", "pto_wsp.passes", "pto_wsp.lowering.cpu"):
        spec = find_spec(package)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            # (.pyc: an install without sources has its compiled modules in their place)
            for path in sorted(p for p in Path(folder).iterdir() if p.suffix in (".py", ".pyc")):
                h.update(b"\0" + path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def load(key: str) -> Library | None:
    """The program cached under ``key``, or None when there is none or it is not whole."""
    lib, digest = programs_dir() / f"{key}.so", programs_dir() / f"{key}.sha256"
    try:
        expected = digest.read_text().strip()
        data = lib.read_bytes()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != expected:
        return None
    try:
        return Library(ctypes.CDLL(str(lib)))
    except OSError:
        return None


def store(key: str, engine: Any, core: bool = True, into: Path | None = None) -> bool:
    """Write the program ``engine`` (an ExecutionEngine) compiled under ``key`` into ``into``
    (default: ``programs_dir()``), linked against the native core when ``core``; False when
    it could not (no linker, a read-only cache): the cache is an optimisation only."""
    folder = into or programs_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder) as work:
            obj, lib = Path(work, "program.o"), Path(work, "program.so")
            try:
                engine.dump_to_object_file(str(obj))
            except RuntimeError:  # an engine made without its object code
                return False
            # The linker alone (the compiler driver costs ten times more): the code needs
            # the core (if any) and, at most, the C library, which every process has loaded.
            # JIT code has absolute relocations: the library gets text relocations.
            core_lib = [str(library())] if core else []
            cmd = [linker(), "-shared", str(obj), *core_lib, "-o", str(lib)]
            if subprocess.run(cmd, capture_output=True, check=False).returncode != 0:
                return False
            digest = Path(work, "program.sha256")
            digest.write_text(hashlib.sha256(lib.read_bytes()).hexdigest())
            # The library first: a digest never names a library that is not complete.
            os.replace(lib, folder / f"{key}.so")
            os.replace(digest, folder / f"{key}.sha256")
    except OSError:
        return False
    _evict(folder, "*.so")
    return True


def load_table(key: str) -> Any:
    """The JSON value stored under ``key`` by ``store_table``; None when there is none or
    it is not whole (cut short, changed)."""
    try:
        digest, _, text = (programs_dir() / f"{key}.json").read_text().partition("\n")
        if hashlib.sha256(text.encode()).hexdigest() != digest:
            return None
        return json.loads(text)
    except (OSError, ValueError):  # (UnicodeDecodeError and JSONDecodeError among them)
        return None


def store_table(key: str, value: Any) -> bool:
    """Keep ``value`` (plain JSON data) under ``key``; False when it could not."""
    folder = programs_dir()
    text = json.dumps(value, separators=(",", ":"))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder) as work:
            table = Path(work, "table.json")
            table.write_text(hashlib.sha256(text.encode()).hexdigest() + "\n" + text)
            os.replace(table, folder / f"{key}.json")
    except OSError:
        return False
    _evict(folder, "*.json")
    return True


def linker() -> str:
    """The linker that makes a compiled program a shared library: ``$LD``, else ``ld``."""
    return os.environ.get("LD", "ld")


def _evict(folder: Path, pattern: str) -> None:
    """Keep the newest ``KEEP`` files of ``pattern`` (programs, tables): a long session of
    generated programs (tests, fuzzing) must not fill the disk."""
    files = sorted(folder.glob(pattern), key=_mtime)
    for path in files[: max(0, len(files) - KEEP)]:
        path.with_suffix(".sha256").unlink(missing_ok=True)
        path.unlink(missing_ok=True)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:  # removed meanwhile by another process
        return 0.0
