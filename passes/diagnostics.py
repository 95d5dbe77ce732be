"""Warnings from passes, in MLIR's format: ``file:line:col: warning: message``.

xDSL has no diagnostic engine for warnings. A directive a pass cannot honour must never be
dropped silently (DESIGN.md "Extension"), so passes report it here, at the op's location when
the op has one (pto-opt gives every parsed op its file:line:col).
"""

from __future__ import annotations

import re
import sys
from typing import NoReturn

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation
from xdsl.utils.exceptions import PassFailedException

from pto_wsp.errors import SourceLoc


def location_of(op: Operation) -> str:
    """``file:line:col`` of ``op`` or of its nearest located ancestor; '' when none has one."""
    current: Operation | None = op
    while current is not None:
        loc = getattr(current, "location", None)
        if isinstance(loc, FileLineColLoc):
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
        current = current.parent_op()
    return ""


#: Option hints as passes spell them (pto-opt's ``-p 'wsp-to-tg{schedule=NAME}'``) and as
#: ``pto_wsp.compile(..., schedule="NAME")`` takes them.
_PYTHON_SPELLING = [
    (re.compile(r"(?:wsp|csp)-to-tg\{schedule=NAME\}"), 'schedule="NAME"'),
]


def source_of(op: Operation) -> SourceLoc | None:
    """The place in Python source that wrote ``op`` (a traced tile op carries the line of its
    ``pl.*`` call) or its nearest located ancestor; None when none has one."""
    current: Operation | None = op
    while current is not None:
        loc = getattr(current, "location", None)
        if isinstance(loc, FileLineColLoc) and loc.filename.data.endswith(".py"):
            return SourceLoc(loc.filename.data, loc.line.data)
        current = current.parent_op()
    return None


def python_spelling(message: str) -> str:
    """A pass's message for a Python caller: its option hints as ``compile()`` keywords."""
    for pattern, python in _PYTHON_SPELLING:
        message = pattern.sub(python, message)
    return message


def warn(op: Operation, message: str) -> None:
    """Print ``loc: warning: message`` on stderr (``warning: message`` without a location)."""
    where = location_of(op)
    prefix = f"{where}: " if where else ""
    print(f"{prefix}warning: {message}", file=sys.stderr)


def fail(op: Operation, message: str) -> NoReturn:
    """Raise a pass's PassFailedException about ``op``; ``.op`` names it for callers that
    report the error themselves (the Ascend target), pto-opt locates it like a verifier's."""
    error = PassFailedException(message)
    error.op = op  # type: ignore[attr-defined]
    op.emit_error(message, error)
