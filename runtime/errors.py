"""Runtime errors of the CPU simulator (seed 001 §10), re-exported by ``pto_wsp``.

``CompileError`` (building or compiling something invalid) lives with the Python API; these
are the errors of running a compiled program. Each names what failed in the program's own
terms — a task by its id, kernel and coordinates; a process by its name and replica; a
channel by its name — so the message can be acted on without a debugger.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "ChannelClosed",
    "ChannelError",
    "Deadlock",
    "ExecutionError",
    "ResourceError",
]


def _coords_text(coords: Sequence[tuple[str, int]]) -> str:
    return ", ".join(f"{k}={v}" for k, v in coords)


class ExecutionError(RuntimeError):
    """A kernel body raised: names the task (id, kernel, coordinates) and keeps the cause.

    The simulator stops at the first failing task: no later task starts, so the bound arrays
    hold the results of the tasks that ran before it.
    """

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
        what = f"{type(cause).__name__}: {cause}" if isinstance(cause, BaseException) else cause
        super().__init__(
            f"task {task_id} (kernel @{kernel}, {_coords_text(self.coords) or 'no coordinates'})"
            f" failed: {what}"
        )


class ResourceError(RuntimeError):
    """A resource limit of the schedule was hit: ``task_window(n, overflow=abort)`` full."""


class ChannelError(RuntimeError):
    """An error of a CSP channel (seed 001 §10: the base of ChannelClosed)."""


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
