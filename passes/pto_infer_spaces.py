"""``pto-infer-spaces``: tiles reach the memory spaces their ops compute in (PyPTO's inference).

A kernel author loads tiles and multiplies them without naming buffers; this pass places them:

- a matmul's left (right) operand loaded into ``vec`` is loaded into ``mat`` instead (a second
  load when vector ops read it too) and moved to ``left`` (``right``); one already in ``mat``
  is moved; an ``acc`` result (a chained matmul) goes ``acc -> mat -> left``; a bias goes
  ``mat -> bias`` the same way;
- an ``acc`` tile read by a vector op is moved to ``vec`` once, after the op making it; a store
  of an ``acc`` tile stays (the fixpipe writes it out);
- a vector op's result computed from moved operands is a ``vec`` tile.

Its input is the traced form, where ``pto.matmul`` may read ``vec`` tiles and vector ops
``acc`` ones: that form does not verify (read it with ``pto-opt --disable-verify``); the
output does. A matmul operand computed in ``vec`` has no path to ``left``/``right`` on the
hardware (no vec -> mat move): the pass reports it at the matmul.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import DiagnosticException

from pto_wsp.dialects import pto

#: Ops that read and write tiles where they are: transfers, moves and the cube's own ops.
_PLACED = (pto.LoadOp, pto.StoreOp, pto.MoveOp, pto.AllocOp)
_MATMULS = (pto.MatmulOp, pto.MatmulAccOp, pto.MatmulBiasOp)
#: Ops passing tiles on as they are (loops, ifs and what their regions yield): a carried
#: tile keeps the space it has, which its initial and yielded values agree on.
_CONTROL = (scf.ForOp, scf.IfOp, scf.WhileOp, scf.YieldOp, scf.ConditionOp)


class _Placer:
    """Places the tiles of one function; remembers the moves made, one per value and space."""

    def __init__(self) -> None:
        self.moved: dict[tuple[SSAValue, str], SSAValue] = {}
        #: vec loads a mat load was made for (dropped if nothing reads them any more).
        self.reloaded: list[pto.LoadOp] = []

    def move_after(self, value: SSAValue, space: str) -> SSAValue:
        """``value`` moved to ``space`` right after it is made (through ``mat`` from vec
        loads and acc results when the hardware needs it)."""
        key = (value, space)
        if key in self.moved:
            return self.moved[key]
        t = pto.tile(value)
        source = t.space_name
        if space in ("left", "right", "bias") and source != "mat":
            value = self.to_mat(value)
        elif space == "vec" and source not in ("acc", "vec"):
            raise _error(f"a {source} tile cannot move to vec")
        move = pto.MoveOp(value, space)
        _insert_after(value, move)
        self.moved[key] = move.result
        return move.result

    def to_mat(self, value: SSAValue) -> SSAValue:
        """``value`` in ``mat``: its load into mat, or its acc result moved there."""
        key = (value, "mat")
        if key in self.moved:
            return self.moved[key]
        t = pto.tile(value)
        owner = value.owner
        if isinstance(owner, pto.LoadOp) and t.space_name == "vec":
            new = pto.LoadOp(owner.source, t.with_(space="mat"), owner.offsets, owner.valid_sizes)
            Rewriter.insert_op(new, InsertPoint.after(owner))
            self.reloaded.append(owner)
            result = new.result
        elif t.space_name == "acc":
            move = pto.MoveOp(value, "mat")
            _insert_after(value, move)
            result = move.result
        elif t.space_name == "mat":
            return value
        else:
            raise _error(
                f"a matmul operand computed in {t.space_name} cannot reach the cube unit "
                "(no vec -> mat move): store it and load it again",
            )
        self.moved[key] = result
        return result

    def place(self, op: Operation) -> None:
        if isinstance(op, _MATMULS):
            self.place_matmul(op)
        elif not isinstance(op, _PLACED + _CONTROL) and any(
            isinstance(v.type, pto.TileType) for v in op.operands
        ):
            self.place_vector(op)

    def place_matmul(self, op: Operation) -> None:
        wanted = [("lhs", "left"), ("rhs", "right")]
        if isinstance(op, pto.MatmulBiasOp):
            wanted.append(("bias", "bias"))
        for field, space in wanted:
            value = getattr(op, field)
            if pto.tile(value).space_name != space:
                try:
                    op.operands[_index(op, value)] = self.move_after(value, space)
                except SpaceError as error:
                    error.op = op
                    raise

    def place_vector(self, op: Operation) -> None:
        for i, value in enumerate(op.operands):
            if isinstance(value.type, pto.TileType) and value.type.space_name == "acc":
                op.operands[i] = self.move_after(value, "vec")
        for result in op.results:
            t = result.type
            if isinstance(t, pto.TileType) and t.space_name != "vec":
                Rewriter.replace_value_with_new_type(result, t.with_(space="vec"))


def _index(op: Operation, value: SSAValue) -> int:
    return list(op.operands).index(value)


def _insert_after(value: SSAValue, op: Operation) -> None:
    owner = value.owner
    if isinstance(owner, Operation):
        Rewriter.insert_op(op, InsertPoint.after(owner))
    else:
        Rewriter.insert_op(op, InsertPoint.at_start(owner))


class SpaceError(DiagnosticException):
    """A tile the pass cannot place; ``op`` is the op that needs it (for a located report)."""

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(f"pto-infer-spaces: {message}")
        self.op = op


def _error(message: str) -> SpaceError:
    return SpaceError(message)


def infer_spaces(function: FuncOp) -> None:
    """Place the tiles of one function (see the module's docstring)."""
    placer = _Placer()
    for op in list(function.walk()):
        placer.place(op)
    for load in placer.reloaded:
        if not load.result.uses:
            Rewriter.erase_op(load)


@dataclass(frozen=True)
class InferSpacesPass(ModulePass):
    """Move tiles to the memory spaces their ops compute in (loads to mat for matmuls, ...)."""

    name = "pto-infer-spaces"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in op.walk():
            if isinstance(function, FuncOp) and pto.func_type(function) == "incore":
                infer_spaces(function)
