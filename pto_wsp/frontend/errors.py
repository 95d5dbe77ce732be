"""Errors of the Python API: ``CompileError`` names the construct and the user's source line.

Every construct the API builds (a loop, a task, a view, a send, a schedule directive)
remembers where in the user's code it was written, so an error found later — when a
process body is checked against its channels, or when the module is assembled — still
points at the line that wrote the faulty construct.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

#: Frames in files under this folder are the API's own; a location is the first frame outside.
_FRONTEND_DIR = os.path.dirname(os.path.abspath(__file__))
_PACKAGE_DIR = os.path.dirname(_FRONTEND_DIR)


class CompileError(Exception):
    """Building or compiling something invalid (seed 001 §10): names the construct and the line."""

    def __init__(self, construct: str, message: str, loc: SourceLoc | None = None):
        self.construct = construct
        self.message = message
        self.loc = loc if loc is not None else user_location()
        super().__init__(f"{self.loc}: {construct}: {message}")


@dataclass(frozen=True)
class SourceLoc:
    """A place in the user's Python source."""

    filename: str
    lineno: int

    def __str__(self) -> str:
        return f"{_short(self.filename)}:{self.lineno}"


def _short(filename: str) -> str:
    """A path relative to the working directory when it is below it (shorter messages)."""
    try:
        rel = os.path.relpath(filename)
    except ValueError:  # another drive on Windows
        return filename
    return filename if rel.startswith("..") else rel


def _is_internal(filename: str) -> bool:
    path = os.path.abspath(filename)
    return path.startswith(_FRONTEND_DIR + os.sep) or path == os.path.join(
        _PACKAGE_DIR, "__init__.py"
    )


def own_folders() -> tuple[str, ...]:
    """The folders of pto-wsp's loaded modules (the API, the passes, the lowerings, the
    runtime, the tools), each ending in a separator: a file under one is pto-wsp's own."""
    return tuple(
        {
            os.path.dirname(os.path.abspath(module.__file__)) + os.sep
            for name, module in list(sys.modules.items())
            if name.partition(".")[0] == "pto_wsp" and getattr(module, "__file__", None)
        }
    )


def caller_location() -> SourceLoc:
    """Where the user called into pto-wsp (a backend's ``compile``): the innermost frame
    outside ``own_folders()``."""
    own = own_folders()
    frame = sys._getframe(1)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not path.startswith(own):
            return SourceLoc(frame.f_code.co_filename, frame.f_lineno)
        frame = frame.f_back
    return SourceLoc("<unknown>", 0)


def user_location() -> SourceLoc:
    """The innermost frame of the caller that is not inside the API: where the user wrote it."""
    frame = sys._getframe(1)
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return SourceLoc("<unknown>", 0)
    return SourceLoc(frame.f_code.co_filename, frame.f_lineno)
