"""``pto-outline-incore-scopes``: each ``pto.incore_scope`` becomes an InCore ``func.func``.

Seed 003's OutlineIncoreScopes. A scope in function ``@main`` becomes ``@main_incore_0``
(then ``_1``, ...; a taken name gets the next number): its parameters are the values the
scope uses from around it (live-ins, in order of first use), its results the values its
``pto.yield`` gives, and a ``func.call`` takes the scope's place. The function that held
the scope calls InCore code, so an opaque one becomes an orchestration function.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import ConstantLike

from pto_wsp.dialects.pto import FUNC_TYPE_ATTR, FuncTypeAttr, IncoreScopeOp, YieldOp, func_type


def live_ins(scope: Operation) -> list[SSAValue]:
    """The values ``scope``'s ops use that are defined outside it, in order of first use
    (constants included: ``outline`` copies those into the function)."""
    found: dict[SSAValue, None] = {}
    for op in scope.walk():
        for value in op.operands:
            owner = value.owner
            defining = owner if isinstance(owner, Operation) else owner.parent_op()
            if defining is None or not scope.is_ancestor(defining):
                found.setdefault(value)
    return list(found)


def outline(scope: IncoreScopeOp, name: str) -> FuncOp:
    """An InCore function doing what ``scope`` does; ``scope`` is replaced by a call of it."""
    used = live_ins(scope)
    # A constant is copied in, not passed: the InCore function stays self-contained, as
    # MLIR's GPU kernel outlining does.
    constants = [
        v for v in used if isinstance(v.owner, Operation) and v.owner.has_trait(ConstantLike)
    ]
    inputs = [v for v in used if v not in constants]
    block = Block(arg_types=[v.type for v in inputs])
    mapping: dict[SSAValue, SSAValue] = {}
    for value, arg in zip(inputs, block.args):
        arg.name_hint = value.name_hint
        mapping[value] = arg
    for value in constants:
        block.add_op(value.owner.clone(value_mapper=mapping))
    for op in scope.body.block.ops:
        if isinstance(op, YieldOp):
            block.add_op(ReturnOp(*[mapping.get(v, v) for v in op.values]))
        else:
            block.add_op(op.clone(value_mapper=mapping))
    func = FuncOp(name, ([v.type for v in inputs], list(scope.res.types)), Region(block))
    func.attributes[FUNC_TYPE_ATTR] = FuncTypeAttr("incore")
    Rewriter.replace_op(scope, CallOp(name, inputs, list(scope.res.types)))
    return func


def _free_name(taken: set[str], base: str, start: int) -> tuple[str, int]:
    k = start
    while f"{base}_incore_{k}" in taken:
        k += 1
    return f"{base}_incore_{k}", k + 1


@dataclass(frozen=True)
class OutlineIncoreScopesPass(ModulePass):
    """Outline every InCore scope into an InCore function called in its place."""

    name = "pto-outline-incore-scopes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        funcs = [f for f in op.walk() if isinstance(f, FuncOp)]
        taken = {f.sym_name.data for f in funcs}
        for func in funcs:
            scopes = [s for s in func.walk() if isinstance(s, IncoreScopeOp)]
            last, k = func, 0
            for scope in scopes:
                name, k = _free_name(taken, func.sym_name.data, k)
                taken.add(name)
                outlined = outline(scope, name)
                Rewriter.insert_op(outlined, InsertPoint.after(last))
                last = outlined
            if scopes and func_type(func) == "opaque":
                func.attributes[FUNC_TYPE_ATTR] = FuncTypeAttr("orchestration")
