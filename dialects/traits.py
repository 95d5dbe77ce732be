"""Traits shared by the pto-wsp dialects.

``IsolatedScopes`` is xDSL's ``IsolatedFromAbove`` plus the scoping rule MLIR's parser and
dominance give every region: an operand must be defined before its use in the same block or
in an enclosing block. xDSL's parser resolves a name used in one region to a value defined
later in a sibling region (a forward reference it never rejects), and xDSL does not verify
dominance, so such a module verified and its lowering emitted code reading a variable of
another function (a NameError in the simulator).
"""

from __future__ import annotations

from xdsl.ir import Operation, Region, SSAValue
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import VerifyException

__all__ = ["IsolatedScopes", "OpVerifyException", "check_scopes"]


class OpVerifyException(VerifyException):
    """A ``VerifyException`` about ``op``, an op nested in the one whose verifier raised it
    (the tools' diagnostics point at ``op``)."""

    def __init__(self, op: Operation, message: str) -> None:
        super().__init__(message)
        self.op = op


class IsolatedScopes(IsolatedFromAbove):
    """``IsolatedFromAbove``, and every value used inside is in scope: defined earlier in the
    same block or in an enclosing block (a block argument of an enclosing block included).
    Nested isolated operations check their own bodies."""

    def verify(self, op: Operation) -> None:
        super().verify(op)
        check_scopes(op)


def check_scopes(op: Operation) -> None:
    """Every value used inside ``op``'s regions is in scope (``IsolatedScopes``' rule), for an
    op that does not carry the trait: a ``func.func`` the pto dialect makes a tile function."""
    visible: set[SSAValue] = set()
    for region in op.regions:
        _check_region(region, visible)


def _check_region(region: Region, visible: set[SSAValue]) -> None:
    """Check the region's ops, ``visible`` holding the values in scope around it. A later
    block of a region sees the values of the earlier ones (dominance's order, approximated:
    our regions have one block; a multi-block region is its op's verifier's business)."""
    added: list[SSAValue] = []
    try:
        for block in region.blocks:
            visible.update(block.args)
            added.extend(block.args)
            for child in block.ops:
                for operand in child.operands:
                    if operand not in visible:
                        name = f"%{operand.name_hint}" if operand.name_hint else "an operand"
                        raise OpVerifyException(
                            child,
                            f"{name} is not defined before this op in its block or an "
                            "enclosing one (a value of another region, or used before its "
                            "definition)",
                        )
                if not child.has_trait(IsolatedFromAbove):
                    for inner in child.regions:
                        _check_region(inner, visible)
                visible.update(child.results)
                added.extend(child.results)
    finally:
        visible.difference_update(added)
