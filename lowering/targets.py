"""Compile targets by name (seed 004 §1.1, §5): the backends, the seed's names as aliases,
and what each target supports.

``compile(x, target=...)`` takes a backend's name (``cpu_sim``, ``aie``, ``ascend``) or one of
seed 004's target names, which stand for a backend with an option preset: ``ascend_910b`` is
``ascend`` with ``soc="910b"``, ``xdna2`` is ``aie`` with ``device="npu2"``. ``targets()`` lists
the names; ``target_info(name)`` says what a target returns, its options and modes, and what
it does with each schedule directive.
"""

from __future__ import annotations

import importlib
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from xdsl.dialects.builtin import ModuleOp

from pto_wsp.errors import CompileError, ErrorCode, SourceLoc

#: The backends ``compile`` knows (DESIGN.md "Targets"); each registers itself.
TARGETS = ("cpu_sim", "aie", "ascend")
#: The module of each backend, imported when its target is first used (a process that
#: never compiles for AIE or Ascend does not pay for importing them).
_MODULES = {
    "cpu_sim": "pto_wsp.lowering.cpu.backend",
    "aie": "pto_wsp.lowering.aie",
    "ascend": "pto_wsp.lowering.ascend",
}

#: Seed 004's target names: (backend, the options they preset).
ALIASES: Mapping[str, tuple[str, Mapping[str, Any]]] = MappingProxyType(
    {
        "ascend_npu": ("ascend", {}),
        "ascend_910b": ("ascend", {"soc": "910b"}),
        "ascend_910c": ("ascend", {"soc": "910c"}),
        "ascend_950": ("ascend", {"soc": "950"}),
        "amd_aie": ("aie", {}),
        "xdna1": ("aie", {"device": "npu1"}),
        "xdna2": ("aie", {"device": "npu2"}),
    }
)

#: The compile options of seed 001 §7.2 every target answers: each has an effect or is refused.
COMMON_OPTIONS = ("profiling", "debug", "optimization_level", "max_code_size")

_BACKENDS: dict[str, Callable[..., Any]] = {}
_INFO: dict[str, Mapping[str, Any]] = {}

#: The Python kernel bodies of each module the API built (the CPU simulator runs them). They
#: live here, below the frontend, so that a backend finds them without importing the frontend.
_BODIES: weakref.WeakKeyDictionary[ModuleOp, dict[str, Callable[..., Any]]] = (
    weakref.WeakKeyDictionary()
)


def attach_bodies(module: ModuleOp, bodies: Mapping[str, Callable[..., Any]]) -> None:
    """Remember the Python bodies of ``module``'s kernels, by kernel name."""
    _BODIES[module] = dict(bodies)


def bodies_of(module: ModuleOp) -> dict[str, Callable[..., Any]]:
    """The Python kernel bodies attached to ``module`` (none for parsed IR)."""
    return dict(_BODIES.get(module, {}))


@dataclass(frozen=True)
class TargetInfo:
    """What a compile target supports: ``target_info("xdna2")``."""

    name: str
    #: The backend the name stands for, and the options the name presets.
    backend: str
    preset: Mapping[str, Any] = field(default_factory=dict)
    #: The seed's names for this backend.
    aliases: tuple[str, ...] = ()
    returns: str = ""
    modes: tuple[str, ...] = ()
    #: Option -> its meaning (seed 001 §7.2's options say their effect, or why refused).
    options: Mapping[str, str] = field(default_factory=dict)
    #: Schedule directive -> what the target does with it.
    directives: Mapping[str, str] = field(default_factory=dict)
    available: bool = True


def register_backend(
    target: str, backend: Callable[..., Any], info: Mapping[str, Any] | None = None
) -> None:
    """Make ``compile(..., target=target)`` run ``backend(module, **options)``; ``info`` (keys
    ``returns``, ``modes``, ``options``, ``directives``) answers ``target_info``."""
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r} (targets: {', '.join(TARGETS)})")
    _BACKENDS[target] = backend
    _INFO[target] = dict(info or {})


def targets() -> list[str]:
    """Every name ``compile`` takes: the backends, then the seed's target names."""
    return [*TARGETS, *ALIASES]


def target_info(name: str) -> TargetInfo:
    """What target ``name`` (a backend or an alias) returns, its options, modes and directives."""
    backend, preset = _split(name, None)
    _load(backend)
    info = _INFO.get(backend, {})
    return TargetInfo(
        name=name,
        backend=backend,
        preset=MappingProxyType(dict(preset)),
        aliases=tuple(a for a, (b, _) in ALIASES.items() if b == backend),
        returns=info.get("returns", ""),
        modes=tuple(info.get("modes", ())),
        options=MappingProxyType(dict(info.get("options", {}))),
        directives=MappingProxyType(dict(info.get("directives", {}))),
        available=backend in _BACKENDS,
    )


def _load(backend: str) -> None:
    """Import ``backend``'s module unless a backend for it is registered already."""
    if backend in _BACKENDS:
        return
    module = importlib.import_module(_MODULES[backend])
    # Backends that do not register themselves on import offer register().
    register = getattr(module, "register", None)
    if register is not None and backend not in _BACKENDS:
        register()


def _split(name: Any, loc: SourceLoc | None) -> tuple[str, Mapping[str, Any]]:
    if name in TARGETS:
        return name, {}
    if name in ALIASES:
        return ALIASES[name]
    message = f"unknown target {name!r} (targets: {', '.join(targets())})"
    if loc is None:
        raise ValueError(message)
    raise CompileError("compile", message, loc=loc, code=ErrorCode.INVALID_OPTION)


def resolve(
    name: Any, options: dict[str, Any], loc: SourceLoc
) -> tuple[str, Callable[..., Any], dict[str, Any]]:
    """The backend, its function and the options for ``compile(target=name, **options)``."""
    backend, preset = _split(name, loc)
    for key, value in preset.items():
        if key in options and options[key] != value:
            raise CompileError(
                "compile",
                f"target {name!r} is {backend} with {key}={value!r}, but {key}="
                f"{options[key]!r} was given (use target={backend!r} to choose {key})",
                loc=loc,
                code=ErrorCode.INVALID_OPTION,
            )
    _load(backend)
    function = _BACKENDS.get(backend)
    if function is None:
        raise CompileError(
            "compile", f"target {backend!r} is not available: its backend did not register", loc=loc
        )
    return backend, function, {**preset, **options}
