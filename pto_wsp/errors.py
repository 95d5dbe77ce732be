"""The errors of pto-wsp (seed 001 §10): one family under ``PtoError``, each with an ``ErrorCode``.

``CompileError`` (building or compiling something invalid) names the construct and the line
of the user's code that wrote it; the others are errors of running a compiled program and
name what failed in the program's own terms — a task by its id, kernel and coordinates; a
process by its name and replica; a channel by its name — so the message can be acted on
without a debugger. This module imports nothing of pto-wsp: the frontend, the lowerings, the
runtime and the tools all raise from here.

Every construct the API builds (a loop, a task, a view, a send, a schedule directive)
remembers where in the user's code it was written, so a ``CompileError`` found later — when a
process body is checked against its channels, or when the module is assembled — still points
at the line that wrote the faulty construct.
"""

from __future__ import annotations

import contextlib
import enum
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

__all__ = [
    "ChannelClosed",
    "ChannelError",
    "CompileError",
    "Deadlock",
    "ErrorCode",
    "ExecutionError",
    "PtoError",
    "ResourceError",
    "SourceLoc",
    "Timeout",
]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
#: Frames in files under this folder are the API's own; a location is the first frame outside.
_FRONTEND_DIR = os.path.join(_PACKAGE_DIR, "frontend")
_OWN_FILES = frozenset(
    os.path.join(_PACKAGE_DIR, f) for f in ("__init__.py", os.path.basename(__file__))
)


class ErrorCode(enum.IntEnum):
    """What kind of failure an error is (seed 001 §10.2, plus KERNEL_FAILED and INVALID_OPTION)."""

    OK = 0
    # Compilation
    INVALID_WORKLOAD = 1
    INVALID_SCHEDULE = 2
    CODE_SIZE_EXCEEDED = 3
    # Execution
    KERNEL_NOT_FOUND = 4
    RESOURCE_NOT_AVAILABLE = 5
    TIMEOUT = 6
    # CSP
    CHANNEL_CLOSED = 7
    DEADLOCK_DETECTED = 8
    # Not in the seed: a kernel body raised or misbehaved; a compile option is invalid.
    KERNEL_FAILED = 9
    INVALID_OPTION = 10


class PtoError(Exception):
    """The base of every pto-wsp error (seed 001 §10.1's ``RuntimeError``); ``code`` says which kind."""

    code: ErrorCode = ErrorCode.OK


# --------------------------------------------------------------------------- compile


@dataclass(frozen=True)
class SourceLoc:
    """A place in the user's Python source."""

    filename: str
    lineno: int

    def __str__(self) -> str:
        return f"{_short(self.filename)}:{self.lineno}"


#: Constructs of schedules: their CompileErrors are INVALID_SCHEDULE.
_SCHEDULE_CONSTRUCTS = frozenset(
    "schedule dispatch streams stream_by issue timing spatial_map layout dispatch_threshold "
    "pipeline_depth task_window batch_deps key".split()
)


class CompileError(PtoError):
    """Building or compiling something invalid (seed 001 §10): names the construct and the line.

    ``code`` is INVALID_SCHEDULE for a schedule's constructs, INVALID_WORKLOAD for the others,
    unless the raiser says (CODE_SIZE_EXCEEDED, INVALID_OPTION)."""

    def __init__(
        self,
        construct: str,
        message: str,
        loc: SourceLoc | None = None,
        code: ErrorCode | None = None,
    ):
        self.construct = construct
        self.message = message
        self.loc = loc if loc is not None else user_location()
        if code is None:
            head = construct.split("(")[0].split()[0] if construct.strip() else ""
            schedule = head in _SCHEDULE_CONSTRUCTS
            code = ErrorCode.INVALID_SCHEDULE if schedule else ErrorCode.INVALID_WORKLOAD
        self.code = code
        super().__init__(f"{self.loc}: {construct}: {message}")


def _short(filename: str) -> str:
    """A path relative to the working directory when it is below it (shorter messages)."""
    try:
        rel = os.path.relpath(filename)
    except ValueError:  # another drive on Windows
        return filename
    return filename if rel.startswith("..") else rel


def _is_internal(filename: str) -> bool:
    path = os.path.abspath(filename)
    return path.startswith(_FRONTEND_DIR + os.sep) or path in _OWN_FILES


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


#: A location standing for the user's, per thread (``located_at``).
_WHERE = threading.local()


@contextlib.contextmanager
def located_at(loc: SourceLoc) -> Iterator[None]:
    """Errors raised in this thread meanwhile are located at ``loc`` (``compile_async``: the
    compile runs on a thread whose stack holds no user code)."""
    _WHERE.loc = loc
    try:
        yield
    finally:
        _WHERE.loc = None


def caller_location() -> SourceLoc:
    """Where the user called into pto-wsp (a backend's ``compile``): the innermost frame
    outside ``own_folders()``."""
    where = getattr(_WHERE, "loc", None)
    if where is not None:
        return where
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
    where = getattr(_WHERE, "loc", None)
    if where is not None:
        return where
    frame = sys._getframe(1)
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return SourceLoc("<unknown>", 0)
    return SourceLoc(frame.f_code.co_filename, frame.f_lineno)


# --------------------------------------------------------------------------- execution


def _coords_text(coords: Sequence[tuple[str, int]]) -> str:
    return ", ".join(f"{k}={v}" for k, v in coords)


#: Why numpy refuses a write into an ``In`` view, said in the kernel's terms.
_READ_ONLY_HINT = (
    " (the kernel declares that parameter In: its view is read-only inside the body; "
    "declare it Out or InOut to write it)"
)


def _cause_text(cause: BaseException | str) -> str:
    if not isinstance(cause, BaseException):
        return cause
    text = f"{type(cause).__name__}: {cause}"
    if isinstance(cause, ValueError) and "is read-only" in str(cause):
        text += _READ_ONLY_HINT
    return text


class ExecutionError(PtoError, RuntimeError):
    """A kernel body raised or misbehaved: names the task (id, kernel, coordinates), keeps the cause.

    The simulator stops at the first failing task: no later task starts, so the bound arrays
    hold the results of the tasks that ran before it.
    """

    code = ErrorCode.KERNEL_FAILED

    def __init__(
        self,
        task_id: int,
        kernel: str,
        coords: Sequence[tuple[str, int]],
        cause: BaseException | str,
    ) -> None:
        self.task_id = task_id
        self.kernel = kernel
        self.coords = tuple(coords)
        self.cause = cause
        super().__init__(
            f"task {task_id} (kernel @{kernel}, {_coords_text(self.coords) or 'no coordinates'})"
            f" failed: {_cause_text(cause)}"
        )


class ResourceError(PtoError, RuntimeError):
    """A resource limit of the schedule was hit: ``task_window(n, overflow=abort)`` full."""

    code = ErrorCode.RESOURCE_NOT_AVAILABLE


class Timeout(PtoError, TimeoutError):
    """A wait with a ``timeout`` ended before the run did (``synchronize``, ``join``)."""

    code = ErrorCode.TIMEOUT


class ChannelError(PtoError, RuntimeError):
    """An error of a CSP channel (seed 001 §10: the base of ChannelClosed)."""

    code = ErrorCode.CHANNEL_CLOSED


class ChannelClosed(ChannelError):
    """A process used a channel that is closed for it: it synchronizes on an event that
    nobody can record any more, or sends to a channel that nobody can receive any more."""

    def __init__(self, process: str, channel: str, message: str) -> None:
        self.process = process
        self.channel = channel
        super().__init__(f"process {process}: channel @{channel} is closed: {message}")


class Deadlock(ChannelError):
    """Every live process is blocked on a channel and no running task can unblock one.

    ``blocked`` lists (process, operation, channel) for every blocked process replica.
    """

    code = ErrorCode.DEADLOCK_DETECTED

    def __init__(self, blocked: Sequence[tuple[str, str, str]]) -> None:
        self.blocked = list(blocked)
        self.processes = sorted({p for p, _, _ in self.blocked})
        self.channels = sorted({c for _, _, c in self.blocked if c})
        detail = "; ".join(
            f"{p} waits in {op}" + (f" on @{c}" if c else "") for p, op, c in self.blocked
        )
        super().__init__(
            f"deadlock: {len(self.blocked)} blocked process(es) and no task left to run: {detail}"
        )
