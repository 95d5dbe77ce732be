"""The kernel-level passes the Ascend target runs on a tile function before emitting its body.

An AICore body places its tiles in the core's buffers and issues the flags between its
pipes, so the target runs, on a copy of each kernel's tile function (the module is left
alone): ``pto-infer-spaces`` (a no-op on what the Python tracer made), ``pto-plan-memory``
for the target's SoC unless the function is planned already, and ``pto-insert-sync`` unless
it has flags already. A pass's error (a tile that does not fit) is an AscendEmitError at the op.
"""

from __future__ import annotations

from xdsl.dialects.func import FuncOp
from xdsl.utils.exceptions import PassFailedException

from pto_wsp.dialects import pto
from pto_wsp.passes.pto_infer_spaces import SpaceError, infer_spaces
from pto_wsp.passes.pto_insert_sync import insert_sync
from pto_wsp.passes.pto_plan_memory import MEMORY_ATTR, plan_function

from .errors import AscendEmitError


def prepared(function: FuncOp, soc: str, kernel: str) -> FuncOp:
    """A copy of ``function`` with its tiles placed, planned for ``soc`` and synchronized."""
    copy = function.clone()
    try:
        infer_spaces(copy)
        if MEMORY_ATTR not in copy.attributes:
            plan_function(copy, soc.upper())
        if not any(isinstance(op, pto.SetFlagOp | pto.WaitFlagOp) for op in copy.walk()):
            insert_sync(copy)
    except (PassFailedException, SpaceError) as error:
        raise AscendEmitError(
            f"kernel @{kernel}: {error}", getattr(error, "op", None) or function
        ) from None
    return copy
