"""Diagnostics of the Ascend emitter: located at the op, as MLIR reports them."""

from __future__ import annotations

import re
from typing import NoReturn

from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException

from pto_wsp.errors import ErrorCode
from pto_wsp.passes.diagnostics import location_of, python_spelling, source_of


class AscendEmitError(DiagnosticException):
    """What the Ascend target cannot emit, with the op it is about (``op``) and the op's
    ``file:line:col`` in ``where`` ('' when unknown); ``code`` for its CompileError (None:
    the default)."""

    def __init__(self, message: str, op: Operation | None = None, code: ErrorCode | None = None):
        super().__init__(message)
        self.message = message
        self.op = op
        self.code = code
        self.where = location_of(op) if op is not None else ""
        #: The kernel body's line that wrote the op (a traced tile op), for a Python caller.
        self.source = source_of(op) if op is not None else None

    def located(self) -> str:
        """``file:line:col: error: message`` (or ``error: message``)."""
        return f"{self.where + ': ' if self.where else ''}error: {self.message}"

    def located_for_python(self) -> str:
        """``located()`` with the options as ``compile(target="ascend", ...)`` takes them
        (``stub_kernels=True``), not as pto-opt's target options spell them; without the
        location when it is a Python line (``source``: the error's own location)."""
        text = python_spelling(self.message if self.source else self.located())
        for pattern, python in _PYTHON_SPELLING:
            text = pattern.sub(python, text)
        return text


#: Hints as the messages spell them (MLIR attributes, pto-opt's ``-t 'ascend{...}'``
#: options) and as Python writes them.
_PYTHON_SPELLING = [
    (re.compile(r"impls = \{ascend = (\"[^\"]*\")\}"), r'@kernel(impls={"ascend": \1})'),
    (re.compile(r"stub-kernels=true"), "stub_kernels=True"),
    (re.compile(r"kernel-dirs="), "kernel_dirs="),
    (re.compile(r"out-dir="), "out_dir="),
]


def emission_error(op: Operation, message: str, code: ErrorCode | None = None) -> NoReturn:
    """Raise an AscendEmitError about ``op``. Raised through ``op.emit_error``, so pto-opt
    reports it at the op's location like a verifier error."""
    op.emit_error(message, AscendEmitError(message, op, code))
