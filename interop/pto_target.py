"""``pto-opt`` hooks: the ``.pto`` frontend (``file.pto`` or ``-f pto``) and ``-t pto``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target


@dataclass(frozen=True)
class PtoTarget(Target):
    """``-t pto``: print the module as ``.pto`` assembly (seed 000 §8)."""

    name = "pto"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        from .pto_printer import to_string

        output.write(to_string(module))


def pto_target() -> type[Target]:
    return PtoTarget


def pto_frontend(tool: Any) -> Callable[[IO[bytes]], ModuleOp]:
    """The frontend xDSL's command-line tool calls for ``.pto`` input (pto-opt reads the
    chunks itself, with locations; this is for tools built on xDSL's own driver)."""

    def parse(stream: IO[bytes]) -> ModuleOp:
        from .pto_parser import parse as parse_pto

        return parse_pto(stream.read().decode("utf-8"), tool.get_input_name(), tool.ctx)

    return parse
