"""Compile a ``tg.program`` to Python for the simulator, pipelines included.

The code generator of ``pygen.py`` (scf/arith/memref and the task ops, as straight Python)
is extended here with what only the simulator runs:

- each task's regions remember which root dimensions its view keeps (``ViewRegion``), so
  the functional mode hands the kernel a numpy view of the declared shape;
- a pipeline's processes become Python *generator* functions: every point where a process
  may block yields a request to the simulator's process scheduler (runtime/engine.py) —
  ``("send", q, message)`` (``("try_send", q, message)`` for a nonblocking send: answered at
  once, the message dropped when ``q`` cannot take it), ``("recv", q)`` (answered with the
  message, None once closed),
  ``("wait",)`` (until the tasks this process issued have completed) and ``("window",)``
  (until the task window has room). ``tg.send`` builds its message by capturing the tasks
  its body creates; ``tg.consume`` is a loop that receives, issues the message's tasks with
  the process's replica coordinate, runs the body, then waits for what it issued;
  ``tg.record`` waits for the process's tasks, then rendezvous-sends a signal;
  ``tg.synchronize`` receives one.
"""

from __future__ import annotations

import ast
import builtins
import math
import re
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Operation, SSAValue

from pto_wsp.dialects import csp, tg, tg_events
from pto_wsp.lowering.cpu.pygen import (
    _BINARY,
    CodegenError,
    CompiledProgram,
    Tensor,
    View,
    _divsi,
    _Generator,
    _rank_reduction_mask,
    _remsi,
    _tup,
    check_no_recursion,
    constant_value,
    empty_loop,
    exec_generated,
)
from pto_wsp.passes.diagnostics import location_of
from pto_wsp.runtime import memory
from pto_wsp.runtime.batch_order import add_chains
from pto_wsp.runtime.bulk import BatchRegion, Groups
from pto_wsp.runtime.kernels import ViewRegion

__all__ = ["BATCH_LOOPS", "ProcessCode", "SimProgram", "compile_sim_program"]

#: Emit regular loop nests as numpy batches (``_b.add_tasks``); False: task by task
#: (the switch the tests compare both ways with). ``compile_sim_program(batch=...)`` overrides.
BATCH_LOOPS = True

#: Per batch site (one regular nest of the generated code), how many results it keeps, keyed
#: by the values the nest reads from outside (docs/batchgen.md "Batch sites"); 0: no caching.
SITE_ENTRIES = 8

# Elementwise arith on index arrays, with the semantics of the per-task expressions.
_VBINARY = {
    **_BINARY,
    arith.DivSIOp: "_vdivsi({a}, {b})",
    arith.RemSIOp: "_vremsi({a}, {b})",
    arith.MinUIOp: "_np.minimum({a}, {b})",
    arith.MinSIOp: "_np.minimum({a}, {b})",
    arith.MaxUIOp: "_np.maximum({a}, {b})",
    arith.MaxSIOp: "_np.maximum({a}, {b})",
}
_DIVISIONS = (
    arith.DivUIOp,
    arith.FloorDivSIOp,
    arith.DivSIOp,
    arith.CeilDivUIOp,
    arith.CeilDivSIOp,
    arith.RemUIOp,
    arith.RemSIOp,
)
_SHIFTS = (arith.ShLIOp, arith.ShRUIOp, arith.ShRSIOp)
_CASTS = (arith.IndexCastOp, arith.ExtSIOp, arith.ExtUIOp, arith.TruncIOp)
_MAX_AXES = 32
_IDENT = re.compile(r"[A-Za-z_]\w*")


def _vdivsi(a, b):
    """arith.divsi on arrays: rounds toward zero."""
    q = np.abs(a) // np.abs(b)
    return np.where((np.asarray(a) >= 0) == (np.asarray(b) >= 0), q, -q)


def _vremsi(a, b):
    """arith.remsi on arrays: the sign of the dividend."""
    return a - _vdivsi(a, b) * b


def _axis(n: int, axis: int, rank: int) -> np.ndarray:
    """0..n-1 along ``axis`` of a ``rank``-dimensional array (1 elsewhere)."""
    shape = [1] * rank
    shape[axis] = _room(n)
    return np.arange(n, dtype=np.int64).reshape(shape)


def _flat(value, shape):
    """A value of a nest as one entry per task of a tg.task op (row-major over its loops)."""
    if value.__class__ is np.ndarray:
        if value.shape == shape:
            return value.ravel()
        # Filling an empty array costs about half of broadcast_to(...).ravel().
        _room(math.prod(shape))
        out = np.empty(shape, value.dtype)
        out[...] = value
        return out.reshape(-1)
    return value


def _gather(tensor: Tensor, index: tuple, shape: tuple | None = None) -> np.ndarray:
    """``memref.load`` of a tensor argument for many tasks at once: ``int(data[i])`` for each
    entry of the index arrays (broadcast to ``shape``, the iteration shape of the load's
    loops, when given), exactly where the per-task code would load. Nothing is read when
    there is nothing to load. Any failure (an unbound tensor, an index out of range, a value
    that is not an integer) raises: the nest then runs task by task (``_fallback``) and
    raises, or not, exactly as the per-task code does."""
    if shape is not None:
        index = tuple(np.broadcast_to(x, shape) for x in index)
    index = tuple(np.broadcast_arrays(*index))
    if index[0].size == 0:
        return np.zeros(index[0].shape, np.int64)
    data = tensor.data
    if data is None:
        raise KeyError(tensor.name)
    out = data[index]
    kind = out.dtype.kind
    if kind not in "biu" or (kind == "u" and out.dtype.itemsize == 8 and out.max() >> 63):
        raise TypeError(f"{tensor.name}: {out.dtype} values are loaded task by task")
    return out.astype(np.int64, copy=False)


def _nonzero(a, b):
    """The divisor ``b`` of an elementwise division of ``a``: ZeroDivisionError if it is 0
    for any entry computed (where the per-task code raises; the nest then falls back)."""
    if np.ndim(b) == 0:
        if b == 0 and np.size(a):
            raise ZeroDivisionError("integer division or modulo by zero")
        return b
    full = np.broadcast_to(b, np.broadcast_shapes(np.shape(a), np.shape(b)))
    if full.size and (full == 0).any():
        raise ZeroDivisionError("integer division or modulo by zero")
    return b


def _trips(lb, ub, step: int, m: int) -> np.ndarray:
    """Per iteration of the enclosing loop (m of them) the trip count of a loop ``range(lb,
    ub, step)`` (step > 0) whose bounds are arrays over those iterations or ints."""
    n = np.maximum((np.asarray(ub, np.int64) - lb + (step - 1)) // step, 0)
    return np.broadcast_to(n, (m,)).astype(np.int64)


def _ragged(lb, step: int, n: np.ndarray) -> tuple:
    """A loop in the flat iteration space: from the trip count ``n`` per iteration of the
    enclosing loop, (count, parent of each iteration, first iteration of each parent, the
    induction variable) — iterations in creation order (row-major over the loops)."""
    m = _room(int(n.sum()))
    starts = np.cumsum(n) - n
    rep = np.repeat(np.arange(len(n), dtype=np.int64), n)
    local = np.arange(m, dtype=np.int64) - starts[rep]
    if lb.__class__ is np.ndarray:
        lb = lb[rep]
    return m, rep, starts, lb + step * local


def _when(cond, m: int) -> np.ndarray:
    """Per iteration of the enclosing loop (m of them) 1 where ``cond`` holds, else 0: the
    trip count of an ``scf.if`` branch."""
    return np.broadcast_to(np.asarray(cond) != 0, (m,)).astype(np.int64)


def _seg(c, n: np.ndarray):
    """Per parent iteration the sum of ``c`` (tasks per iteration of a loop: an int or an
    array) over its iterations, ``n`` of them per parent, contiguous."""
    if c.__class__ is not np.ndarray:
        return c * n
    cs = np.concatenate(([0], np.cumsum(c)))
    ends = np.cumsum(n)
    return cs[ends] - cs[ends - n]


def _base(pb, c, rep: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per iteration of a loop the position of its first task: ``pb`` (per parent iteration,
    where the loop's first iteration starts) plus the tasks of the earlier iterations of the
    same parent (``c`` per iteration)."""
    first = starts[rep]
    if c.__class__ is np.ndarray:
        cs = np.cumsum(c) - c
        within = cs - cs[first]
    else:
        within = c * (np.arange(len(rep), dtype=np.int64) - first)
    if pb.__class__ is np.ndarray:
        pb = pb[rep]
    return pb + within


#: How many times a data nest's batch failed and the nest ran its per-task code instead (an
#: error the per-task code raises, or data it loads one by one); the tests check it stays put.
FALLBACKS = 0


def _fallback() -> None:
    """(In the ``except`` of a batch.) A MemoryError is final: task by task the nest would
    take more memory, and find out only after walking its tasks."""
    global FALLBACKS
    if isinstance(sys.exception(), MemoryError):
        raise  # (the batch's exception, which the caller is handling)
    FALLBACKS += 1


#: Loop nests of fewer tasks are not checked against the machine's memory (reading what is
#: available costs more than such a nest).
_CHECKED_FROM = 1 << 20


def _room(count: int) -> int:
    """``count`` (a loop nest's tasks), or a MemoryError when this machine's memory could
    not hold their graph: said before the nest's arrays are made, not after walking them."""
    if count >= _CHECKED_FROM:
        why = memory.too_many(count)
        if why is not None:
            raise MemoryError(why)
    return count


class _NoKey:
    """A value a batch site's key cannot hold (the result is then not kept)."""

    __slots__ = ()


_NOKEY = _NoKey()


def _skey(value: Any) -> Any:
    """A batch site's key part for a value that is not an index: a tensor argument by its name
    and shape (all a nest reads of it: extents and whole-tensor regions), a View (frozen) as
    itself, an integer as an int; anything else cannot be keyed."""
    cls = value.__class__
    if cls is int or cls is View or cls is bool:
        return value
    if cls is Tensor:
        return (Tensor, value.name, value.shape)
    if isinstance(value, np.integer):
        return int(value)
    return _NOKEY


def _dkey(value: Any) -> Any:
    """A batch site's key part for a tensor whose data the nest loads: its name, shape and
    data (dtype and bytes: all ``int(data[i])`` depends on); unbound: no data."""
    if value.__class__ is not Tensor:
        return _skey(value)
    data = value.data
    if data is None:
        return (Tensor, value.name, value.shape, None)
    if data.dtype.hasobject:
        return _NOKEY
    return (Tensor, value.name, value.shape, data.dtype.str, data.tobytes())


def _site_put(site: dict, key: tuple, *entry: Any) -> tuple:
    """Keep a batch site's result (the add_tasks / _chains arguments, groups last) under
    ``key``; at most ``SITE_ENTRIES`` per site (a full site starts again)."""
    entry = (*entry[:-1], Groups(entry[-1]))
    if SITE_ENTRIES > 0 and _NOKEY not in key:
        if len(site) >= SITE_ENTRIES:
            site.clear()
        site[key] = entry
    return entry


def _const(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return constant_value(owner.value)
    return None


def _inside(value: SSAValue, root: Operation) -> bool:
    """Whether ``value`` is defined by an op nested in ``root``."""
    op = value.owner if isinstance(value.owner, Operation) else value.owner.parent_op()
    while op is not None:
        if op is root:
            return True
        op = op.parent_op()
    return False


def _view_cached(value: Any) -> View:
    """pygen's ``_view``, keeping each tensor's root view (made once per run, not per use)."""
    if value.__class__ is Tensor:
        root = value.__dict__.get("_root_view")
        if root is None:
            root = value._root_view = value.root()  # type: ignore[attr-defined]
        return root
    return value


def _region(value: Any, access: str) -> ViewRegion:
    if value.__class__ is Tensor:  # a whole tensor: one region per access, made once a run
        cache = value.__dict__.setdefault("_regions", {})
        region = cache.get(access)
        if region is None:
            view = _view_cached(value)
            region = cache[access] = ViewRegion.of(
                view.tensor, view.offsets, view.sizes, view.strides, access, view.kept
            )
        return region
    view: View = value
    return ViewRegion.of(view.tensor, view.offsets, view.sizes, view.strides, access, view.kept)


@dataclass
class _Sym:
    """A view known at code-generation time as Python expressions: per root dimension the
    offset, size and stride (variable names or integer literals) and the kept dimensions."""

    tensor: str
    offsets: list[str]
    sizes: list[str]
    strides: list[str]
    kept: tuple[int, ...]
    materialized: bool = False


def _is_simple(expr: str) -> bool:
    return expr.isidentifier() or expr.lstrip("-").isdigit()


class _SimGenerator(_Generator):
    """pygen's generator plus view regions and the process ops.

    ``memref.subview`` chains rooted at a tensor argument are folded at generation time
    (``_Sym``): a task's region is built from the offsets the loop computed, with no View
    object per subview (the per-task path's largest cost of generation)."""

    def __init__(self, replica: str | None = None) -> None:
        super().__init__()
        self.replica = replica  # the replica variable inside a process body
        self.in_send = False
        self.sends: set[str] = set()
        self.receives: set[str] = set()
        self.tensor_args: dict[SSAValue, str] = {}
        self.symviews: dict[SSAValue, _Sym] = {}
        self._temps = 0
        self.batch = BATCH_LOOPS
        # Inside a vectorised nest: the names holding arrays, the task ops met (with their
        # loops) and the number of axes.
        self._vnames: set[str] = set()
        self._vtasks: list | None = None
        self._vguard: list[str] = []  # the trip counts of the loops being emitted
        self._rank = 0
        self._loops = 0
        # The flat iteration space (a nest with ragged loops): per loop its parent loop and
        # depth, its body (tasks and inner loops, in order), per array name the loop whose
        # iterations it is indexed by, and the arrays expanded to inner loops (``_expand``).
        self._flat = False
        self._parent: dict[int, int | None] = {}
        self._depth: dict[int, int] = {}
        self._items: dict[int, list] = {}
        self._level: dict[str, int] = {}
        self._xcache: dict[tuple[str, int | None], str] = {}
        self._open: list[int] = []  # the loops being emitted, outermost first
        self._nests = 0  # data nests emitted (their names: ``_hit3``)
        # What _regular found in the nest: ragged loops, the tensors it loads, divisions by a
        # value (not a constant).
        self._ragged = False
        self._loads: set[str] = set()
        self._divides = False
        self._seqs = False
        # tg.seq in a regular nest: its values (the task count at the op: ``_nt``, the count
        # before the nest, plus the position of the next task) and the ops computed from
        # them, emitted after the loops, when the tasks per iteration are known.
        self._late: set[str] = set()
        self._late_defs: list[tuple] = []
        self._late_ops: list[Operation] = []
        # Batch sites (their cache dicts' names) and whether the nest being emitted gave a
        # Python name to a value defined outside it (the nest is then not cached).
        self.sites: list[str] = []
        #: Whether regular nests become batch sites (off for a program run once).
        self.keep_sites = True
        self._voutside = False
        #: Whether this is a tg.call callee (its tensors are the caller's: no folded views).
        self.callee = False
        #: A tensor argument's name as a Python expression when it is not its literal name
        #: (a callee's tensors are the caller's: ``v1.name``).
        self.tensor_expr: dict[str, str] = {}
        #: The inventory: per loop nest holding tasks (location, kernels, what it became).
        self.nests: list[tuple[str, str, str]] = []
        self._why = ""
        self._depth_pt = 0  # per-task loops being emitted around the current op

    def op(self, op: Operation) -> None:
        if isinstance(op, memref.LoadOp) and op.memref in self.symviews:
            self._folded_load(op)
            return
        if self._vtasks is not None:
            if self._late and any(self.name(x) in self._late for x in op.operands):
                self._late_ops.append(op)  # a value of tg.seq: after the loops
                self._late.update(self.name(r) for r in op.results)
                return
            if self._vector_op(op):
                return
            if isinstance(op, memref.DimOp) and self._vguard:
                # Evaluated only if its loops run (as task by task: an unbound extent is an
                # error only where the loop would have read it).
                src, idx = self.name(op.source), self.name(op.index)
                runs = " and ".join(self._vguard)
                self.line(f"{self.name(op.result)} = {src}.dim({idx}) if {runs} else 0")
                return
            if (
                isinstance(op, _DIVISIONS)
                and self._vguard
                and _const(op.operands[1]) is None
                and not any(self.name(x) in self._vnames for x in op.operands)
            ):
                # An invariant division by a value: once, only if its loops run (a zero
                # divisor raises where the per-task code divides).
                text = _BINARY[type(op)].format(a=self.name(op.lhs), b=self.name(op.rhs))
                runs = " and ".join(self._vguard)
                self.line(f"{self.name(op.result)} = {text} if {runs} else 0")
                return
            if isinstance(op, memref.LoadOp) and self._vguard:
                # An invariant load: once, only if its loops run (as task by task).
                index = ", ".join(self.name(i) for i in op.indices)
                runs = " and ".join(self._vguard)
                self.line(
                    f"{self.name(op.res)} = {self.name(op.memref)}.load({index}) if {runs} else 0"
                )
                return
        if isinstance(op, tg.SendOp):
            self.send(op)
        elif isinstance(op, tg.ConsumeOp):
            self.consume(op)
        elif isinstance(op, tg.CoordOp):
            position = op.position.value.data
            self.line(f"{self.name(op.result)} = {self.name(op.message)}.coord({position})")
        elif isinstance(op, tg.RecordOp):
            queue = op.queue.root_reference.data
            self.sends.add(queue)
            self.line("yield ('wait',)")
            self.line(f"yield ('send', {queue!r}, None)")
        elif isinstance(op, tg.SynchronizeOp):
            queue = op.queue.root_reference.data
            self.receives.add(queue)
            self.line(f"yield ('recv', {queue!r})")
        elif isinstance(op, tg.TaskOp) and self.replica is not None and not self.in_send:
            self.line("while _b.window_full():")
            self.line("    yield ('window',)")
            if not self._depth_pt and self.batch:
                self._note(op, "per task: a pipeline process (the general engine)")
            super().op(op)
        else:
            if isinstance(op, tg.TaskOp) and not self._depth_pt and self.batch:
                self._note(op, "single task (no loop)")
            super().op(op)

    def constant(self, op: memref.GetGlobalOp) -> str:
        var = super().constant(op)
        # A constant array reads as a tensor argument does (loads, folded subviews).
        self.tensor_args[op.memref] = self.constants[var].name
        return var

    # --- regular loop nests as numpy batches --------------------------------------------------

    def for_loop(self, op: scf.ForOp) -> None:
        if not op.iter_args and empty_loop(op):
            return
        if self._vtasks is None and self.batch and self.replica is None and not self.in_send:
            rank = self._regular(op)
            if rank:
                self._note(op, "batch")
                self._vector_nest(op, rank)
                return
            why = self._why
            shape = self._chain_shape(op)
            if shape is not None:
                rank = self._regular(op, chain=True)
                if rank:
                    self._note(op, "chains")
                    self._vector_nest(op, rank, chain=shape)
                    return
                why = self._why
            elif why in ("tg.ordered inside", "tg.order_point inside"):
                why = "ordering points not in a chain's shape (several tasks or loops a step)"
            self._note(op, f"per task: {why}")
        elif self._vtasks is None and self.batch:
            self._note(op, "per task: a pipeline process (the general engine)")
        self._depth_pt += 1
        try:
            super().for_loop(op)
        finally:
            self._depth_pt -= 1

    def _callee_or(self, reason: str) -> str:
        unfolded = self.callee and not self.tensor_args
        return (
            "a tg.call callee's code for views (run when a caller passes one)"
            if unfolded
            else reason
        )

    def _note(self, root: Operation, decision: str) -> None:
        """The inventory (docs/batchgen.md): per loop nest holding tasks (or task outside
        loops), its tasks' kernels and what the generator made of it."""
        kernels = sorted(
            {o.kernel.root_reference.data for o in root.walk() if isinstance(o, tg.TaskOp)}
        )
        if not kernels:
            return
        data = "ragged" if self._ragged else "gathers" if self._loads else "divisions"
        if decision not in ("batch", "chains") or not (
            self._ragged or self._loads or self._divides
        ):
            kind = decision
        else:
            kind = f"{decision} (data: {data})"
        where = location_of(root)
        self.nests.append((where or "", " ".join("@" + k for k in kernels), kind))

    @staticmethod
    def _chain_shape(root: scf.ForOp) -> tuple[int, bool] | None:
        """(how many loops of the nest at ``root`` are outside the chains, scoped) when the
        nest is parallel loops around ``tg.ordered { <chain loops> }`` (scoped) or is the chain
        loops themselves (bare) — docs/batchgen.md "Ordered chains"; else None. The chain
        loops: ``scf.for %t { ...; one tg.task; tg.order_point }``, or loops each holding
        exactly one loop around it (a ``for_each`` over a ragged or 2-d axis: one chain
        through all their iterations). Only the shape: ``_regular(..., chain=True)`` checks
        the ops."""
        creates = scf.ForOp | scf.IfOp | tg.TaskOp | tg.OrderedOp | tg.OrderPointOp

        def chain_loop(loop: scf.ForOp) -> bool:
            ops = [o for o in loop.body.block.ops if not isinstance(o, scf.YieldOp)]
            if not ops or not isinstance(ops[-1], tg.OrderPointOp):
                return False
            if any(
                isinstance(o, scf.ForOp | scf.IfOp | tg.OrderedOp | tg.OrderPointOp)
                for o in ops[:-1]
            ):
                return False
            return sum(isinstance(o, tg.TaskOp) for o in ops) == 1

        def chain_loops(loop: scf.ForOp) -> bool:
            while not chain_loop(loop):
                inner = [o for o in loop.body.block.ops if isinstance(o, creates)]
                if len(inner) != 1 or not isinstance(inner[0], scf.ForOp):
                    return False
                (loop,) = inner
            return True

        if chain_loops(root):
            return 0, False
        depth = 0
        loop = root
        while True:
            depth += 1
            inner = [o for o in loop.body.block.ops if isinstance(o, creates)]
            if len(inner) != 1:
                return None
            (o,) = inner
            if isinstance(o, scf.ForOp):
                loop = o
                continue
            if not isinstance(o, tg.OrderedOp):
                return None
            body = [x for x in o.body.block.ops if isinstance(x, creates)]
            if len(body) != 1 or not isinstance(body[0], scf.ForOp) or not chain_loops(body[0]):
                return None
            return depth, True

    def _regular(self, root: scf.ForOp, chain: bool = False) -> int:
        """The number of loops of the nest at ``root`` if it can be batched (docs/batchgen.md),
        else 0: loops with constant positive steps, index arithmetic, loads of tensor
        arguments, subviews folded onto tensor arguments and tg.task ops — nothing else.
        Sets ``_ragged`` (a loop's bounds depend on the nest's induction variables: the flat
        iteration space) and ``_loads`` (the tensors whose data it loads); ordered chains
        (``chain``) take no ``scf.if``."""
        varying: set[SSAValue] = set()
        folded: set[SSAValue] = set()
        counts = [0, 0]  # loops, tasks
        self._ragged = False
        self._loads = set()
        self._divides = False
        self._seqs = False
        late: set[SSAValue] = set()  # tg.seq values and what is computed from them

        def why(reason: str) -> bool:
            self._why = reason  # what the inventory (``nests``) says
            return False

        def source_ok(value: SSAValue) -> bool:
            if value in folded or value in self.tensor_args:
                return True
            return value in self.symviews

        def walk(block) -> bool:
            for o in block.ops:
                if late and not isinstance(o, tg.TaskOp) and any(x in late for x in o.operands):
                    # A value of tg.seq: task values only (computed after the loops).
                    if type(o) in _BINARY or isinstance(o, (arith.CmpiOp, arith.SelectOp, *_CASTS)):
                        late.update(o.results)
                    else:
                        return why("tg.seq used other than in a task's values")
                if isinstance(o, tg.SeqOp):
                    late.add(o.results[0])
                    varying.add(o.results[0])
                    self._seqs = True
                    continue
                if isinstance(o, scf.ForOp):
                    step = _const(o.step)
                    if o.iter_args or step is None or step <= 0:
                        return why("a loop with loop-carried values or no constant step")
                    if o.lb in varying or o.ub in varying:
                        self._ragged = True  # bounds per outer iteration: the flat space
                    counts[0] += 1
                    varying.add(o.body.block.args[0])
                    if not walk(o.body.block):
                        return False
                    continue
                if isinstance(o, scf.YieldOp):
                    if o.operands:
                        return why("loop-carried values")
                    continue
                if isinstance(o, scf.IfOp):
                    # A branch: a loop of 0 or 1 trips per iteration (the flat space).
                    if chain or o.results:
                        return why("scf.if in a for_each chain" if chain else "scf.if results")
                    self._ragged = True
                    if not walk(o.true_region.block):
                        return False
                    if o.false_region.blocks and not walk(o.false_region.block):
                        return False
                    continue
                if chain and isinstance(o, tg.OrderPointOp | tg.YieldOp):
                    continue  # the chain's shape is _chain_shape's
                if chain and isinstance(o, tg.OrderedOp):
                    if not walk(o.body.block):
                        return False
                    continue
                if isinstance(o, arith.ConstantOp):
                    if not isinstance(o.value, IntegerAttr):
                        return why("a constant that is not an integer")
                    continue
                if type(o) in _BINARY:
                    if isinstance(o, _DIVISIONS):
                        d = _const(o.operands[1])
                        if d == 0:
                            return why("a division by zero")
                        if d is None:  # a zero divisor raises task by task: the fallback
                            self._divides = True
                    if isinstance(o, _SHIFTS):
                        d = _const(o.operands[1])
                        if d is None or not 0 <= d < 63:
                            return why("a shift by a non-constant")
                elif isinstance(o, arith.CmpiOp):
                    if not all(
                        isinstance(u.operation, arith.SelectOp)
                        and u.index == 0
                        or isinstance(u.operation, scf.IfOp)
                        for u in o.result.uses
                    ):
                        return why("arith.cmpi used as a value")
                elif isinstance(o, memref.SubviewOp):
                    if not source_ok(o.source):
                        return why(self._callee_or("a subview of a view made at run time"))
                    if not all(
                        isinstance(u.operation, memref.SubviewOp | tg.TaskOp | memref.LoadOp)
                        for u in o.result.uses
                    ):
                        return why("a subview used other than by subviews, loads and tasks")
                    folded.add(o.result)
                elif isinstance(o, memref.DimOp):
                    # The extent of a tensor argument: invariant (computed once per nest).
                    if o.source not in self.tensor_args or o.index in varying:
                        return why(self._callee_or("memref.dim of a view or a varying dim"))
                    continue
                elif isinstance(o, memref.LoadOp):
                    # A load of a tensor argument's index/integer data: a gather.
                    tensor = self._root_name(o.memref) if source_ok(o.memref) else None
                    if tensor is None:
                        return why(self._callee_or("a load of a view made at run time"))
                    if not isinstance(o.res.type, IndexType | IntegerType):
                        return why("a load of data that is not an integer")
                    self._loads.add(
                        next(self.name(v) for v, n in self.tensor_args.items() if n == tensor)
                    )
                elif isinstance(o, tg.TaskOp):
                    counts[1] += 1
                    for r in o.resources:
                        if r not in folded and _inside(r, root):
                            return why("a task region that is not a folded subview")
                    continue
                elif not isinstance(o, (arith.SelectOp, *_CASTS)):
                    return why(f"{o.name} inside")
                if any(x in varying for x in o.operands):
                    varying.update(o.results)
            return True

        step = _const(root.step)
        if root.iter_args or step is None or step <= 0:
            return why("a loop with loop-carried values or no constant step")
        varying.add(root.body.block.args[0])
        if not walk(root.body.block):
            return 0
        loops, tasks = counts[0] + 1, counts[1]
        if not tasks:
            return why("no task inside")
        if loops > _MAX_AXES and not self._ragged:
            return why(f"more than {_MAX_AXES} loops")
        return loops

    def _vector_nest(
        self, root: scf.ForOp, rank: int, chain: tuple[int, bool] | None = None
    ) -> None:
        """The nest as arrays: per loop its index along an axis of its own, arith elementwise,
        and one ``_b.add_tasks`` call holding every task of the nest in creation order.
        ``chain`` (from ``_chain_shape``): ordered chains, one ``_chains`` call instead.
        A nest with ragged loops takes the flat iteration space instead of axes
        (``_flat_loop``). The nest's arrays depend only on the values it reads from outside
        (and the data it loads): its result is kept per site, keyed by those (``_site_key``).

        A nest that loads tensor data or has ragged loops (a *data nest*) also carries its
        per-task code: if computing the arrays fails (an unbound tensor, an index out of
        range, ...), the nest runs task by task (``_fallback``), which raises — or not —
        exactly the per-task error."""
        ragged, loads = self._ragged, set(self._loads)
        data = ragged or bool(loads) or self._divides
        fallback = self._per_task_lines(root) if data else []
        before = {k: v.materialized for k, v in self.symviews.items()}
        if ragged:
            self.line("# a nest with ragged loops: a flat iteration space")
        else:
            self.line(f"# a regular loop nest: {rank} loop(s) as numpy arrays")
        if self._seqs:
            self.line("_nt = _b.num_tasks  # tg.seq: the tasks created before the nest")
        start = len(self.lines)
        self._vtasks = []
        self._vnames = set()
        self._rank = rank
        self._loops = 0
        self._voutside = False
        self._flat = ragged
        self._open = []
        try:
            if ragged:
                self._parent, self._depth, self._items = {}, {}, {}
                self._level, self._xcache = {}, {}
                self._flat_loop(root, None)
                tasks = self._vtasks
                single = len(tasks) == 1
                if not single or self._late_defs:
                    self._flat_positions()
                self._emit_late()
                groups = [self._flat_task(op, uid, off, single) for op, uid, off in tasks]
                call, args = "_b.add_tasks(", " + ".join(f"_m{uid}" for _, uid, _ in tasks)
                if chain is not None:
                    call, args = "_chains(_b, ", self._flat_chains(chain, tasks[0][1])
            else:
                n, c = self._vector_loop(root, [])
                self._emit_late()
                tasks = self._vtasks
                groups = []
                for op, path in tasks:
                    groups.append(self._vector_task(op, path, single=len(tasks) == 1))
                if chain is not None:
                    depth, scoped = chain
                    count = " * ".join(f"_n{u}" for u in range(depth)) or "1"
                    length = " * ".join(f"_n{u}" for u in range(depth, rank))
                    self.line(f"# ordered chains: loop {depth} is a for_each (docs/batchgen.md)")
                    call, args = "_chains(_b, ", f"{count}, {length}, {scoped}"
                else:
                    call, args = "_b.add_tasks(", f"{n} * {c}"
            body = self.lines[start:]
            del self.lines[start:]
            key = None
            if not self._voutside and self.keep_sites:
                key = self._site_key(body, groups, loads)
            self._emit_nest(body, groups, call, args, key, fallback)
        finally:
            self._vtasks = None
            self._vnames = set()
            self._flat = False
            self._open = []
            self._late, self._late_defs, self._late_ops = set(), [], []
            if data:
                # Views of outside values given a name in the nest's code may not have run
                # (a batch that failed, a fallback not taken): later code names them again.
                for k, v in self.symviews.items():
                    if k in before and v.materialized and not before[k]:
                        v.materialized = False

    def _flat_chains(self, chain: tuple[int, bool], inner: int) -> str:
        """``_chains``' count, lengths and scoped in the flat space: loops ``depth`` on (to
        ``inner``, the chain's task loop) make one chain per iteration of loop ``depth - 1``
        (or one chain: bare), as long as the iterations of ``inner`` under it (per parent
        iteration ``_n``, or counted through the composed parent map)."""
        depth, scoped = chain
        self.line(f"# ordered chains: loop {depth} is a for_each, lengths per chain")
        if depth == 0:
            return f"1, _m{inner}, {scoped}"
        count = f"_m{depth - 1}"
        if inner == depth:
            return f"{count}, _n{inner}, {scoped}"
        rep = self._rmap(depth - 1, inner)
        return f"{count}, _np.bincount({rep}, minlength={count}), {scoped}"

    def _emit_nest(
        self, body: list[str], groups: list[str], call: str, args: str, key, fallback: list
    ) -> None:
        """The nest's code (``body``: its arrays) around its call, with a batch site when
        ``key``, and with the per-task ``fallback`` of a data nest (a data nest's names are
        its own, ``_hit3``)."""
        pad = "    "
        hit, kv = "_hit", "_key"
        if fallback:
            self._nests += 1
            hit, kv = f"_hit{self._nests}", f"_key{self._nests}"
        caught = "except Exception:  # the per-task code raises, or not, as it would"
        if key is not None:
            site = f"_site{len(self.sites)}"
            self.sites.append(site)
            self.line(f"{kv} = {key}")
            self.line(f"{hit} = {site}.get({kv})")
            self.line(f"if {hit} is None:")
            inner = pad * 2 if fallback else pad
            if fallback:
                self.line(pad + "try:")
            self.lines.extend(inner + x for x in body)
            self.line(f"{inner}{hit} = _site_put({site}, {kv}, {args}, [")
            for g in groups:
                self.line(f"{inner}    {g},")
            self.line(f"{inner}])")
            if fallback:
                self.line(pad + caught)
                self.line(pad * 2 + "_fallback()")
                self.lines.extend(pad * 2 + x for x in fallback)
                self.line(f"if {hit} is not None:")
                self.line(f"    {call}*{hit})")
            else:
                self.line(f"{call}*{hit})")
            return
        if not fallback:
            self.lines.extend(body)
            self.line(f"{call}{args}, [")
            for g in groups:
                self.line(f"    {g},")
            self.line("])")
            return
        self.line("try:")
        self.lines.extend(pad + x for x in body)
        self.line(f"    {hit} = ({args}, [")
        for g in groups:
            self.line(f"        {g},")
        self.line("    ])")
        self.line(caught)
        self.line("    _fallback()")
        self.lines.extend(pad + x for x in fallback)
        self.line("else:")
        self.line(f"    {call}*{hit})")

    def _emit_late(self) -> None:
        """tg.seq values over their loops' axes — the tasks before the nest plus the position
        of the task created next — and the ops computed from them, in order."""
        for name, *here in self._late_defs:
            if self._flat:  # over the iterations of its loop: where that loop's tasks start
                uid, item = here
                self.line(f"{name} = _nt + _B{uid} + {self._offset(uid, item)}")
                self._level[name] = uid
            else:
                terms = " + ".join(f"_i{uid} * _c{uid} + ({off})" for uid, off in here[0])
                self.line(f"{name} = _nt + {terms}")
            self._vnames.add(name)
        ops, self._late = self._late_ops, set()
        self._late_ops, self._late_defs = [], []
        for op in ops:
            self.op(op)

    def _per_task_lines(self, root: scf.ForOp) -> list[str]:
        """The nest's per-task code (nothing batched in it), not emitted: the lines."""
        lines, batch = self.lines, self.batch
        before = {k: v.materialized for k, v in self.symviews.items()}
        self.lines, self.batch = [], False
        try:
            _Generator.for_loop(self, root)
            return self.lines
        finally:
            self.lines, self.batch = lines, batch
            for k, v in before.items():
                self.symviews[k].materialized = v

    def _site_key(self, body: list[str], groups: list[str], loads: set[str]) -> str | None:
        """The key of a batch site: a tuple of the names the nest's code reads but does not
        assign (indices as they are, other values through ``_skey``); None when the code
        cannot be analysed (then the nest is not cached)."""
        text = textwrap.dedent("\n".join(body)) + "".join(f"\n_g = {g}" for g in groups)
        try:
            tree = ast.parse(text)
        except SyntaxError:  # pragma: no cover - the generator's own output
            return None
        stored, loaded = set(), []
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Store):
                    stored.add(node.id)
                elif node.id not in loaded:
                    loaded.append(node.id)
        names = {v: k for k, v in self.names.items()}
        glob = _namespace()
        parts = []
        for name in sorted(set(loaded) - stored):
            if name in glob or hasattr(builtins, name):
                continue
            if name == "_b":
                return None  # the builder: not a value of the nest
            value = names.get(name)
            if value is not None and (
                _const(value) is not None or isinstance(value.owner, memref.GetGlobalOp)
            ):
                continue  # a constant (or constant array): the same every time the site runs
            if value is not None and isinstance(value.type, IndexType | IntegerType):
                parts.append(name)
            elif name in loads:
                parts.append(f"_dkey({name})")  # its data too: the nest loads it
            else:
                parts.append(f"_skey({name})")
        return "(" + "".join(p + ", " for p in parts) + ")"

    def _vector_loop(self, op: scf.ForOp, path: list) -> tuple[str, str]:
        uid = self._loops
        self._loops += 1
        axis = uid
        lb, ub, step = (self.name(v) for v in (op.lb, op.ub, op.step))
        n, i, c = f"_n{uid}", f"_i{uid}", f"_c{uid}"
        self.line(f"{n} = len(range({lb}, {ub}, {step}))")
        self._vguard.append(n)
        self.line(f"{i} = _axis({n}, {axis}, {self._rank})")
        iv = self.name(op.body.block.args[0])
        # lb + i * step, without the numpy operations a constant 0 or 1 makes useless.
        value = i if _const(op.step) == 1 else f"{i} * {step}"
        self.line(f"{iv} = {value}" if _const(op.lb) == 0 else f"{iv} = {lb} + {value}")
        self._vnames.add(iv)
        self._open.append(uid)
        counts: list[str] = []
        ops = list(op.body.block.ops)
        while ops:
            o = ops.pop(0)
            offset = " + ".join(counts) or "0"
            here = [*path, (uid, offset)]
            if isinstance(o, scf.ForOp):
                cn, cc = self._vector_loop(o, here)
                counts.append(f"{cn} * {cc}")
            elif isinstance(o, tg.TaskOp):
                self._vtasks.append((o, here))
                counts.append("1")
            elif isinstance(o, tg.OrderedOp):
                ops[:0] = list(o.body.block.ops)  # a chain's scope: _chains makes it
            elif isinstance(o, tg.OrderPointOp):
                pass  # a chain's ordering point: _chains makes it
            elif isinstance(o, tg.SeqOp):
                name = self.name(o.results[0])
                self._late_defs.append((name, here))  # the count before the next task
                self._late.add(name)
            else:
                self.op(o)
        self.line(f"{c} = {' + '.join(counts) or '0'}")
        self._vguard.pop()
        self._open.pop()
        return n, c

    # --- the flat iteration space (ragged loops) ---------------------------------------------

    def _flat_loop(self, op: scf.ForOp, parent: int | None) -> int:
        """A loop of a nest with ragged loops: its iterations in one 1-d array over the
        iterations of every loop around it, in creation order (docs/batchgen.md)."""
        uid = self._loops
        self._loops += 1
        self._parent[uid] = parent
        self._depth[uid] = 0 if parent is None else self._depth[parent] + 1
        lb, ub = (self._expand(self.name(v), parent) for v in (op.lb, op.ub))
        step = self.name(op.step)
        m = "1" if parent is None else f"_m{parent}"
        iv = self.name(op.body.block.args[0])
        self.line(f"_n{uid} = _trips({lb}, {ub}, {step}, {m})")
        self.line(f"_m{uid}, _r{uid}, _s{uid}, {iv} = _ragged({lb}, {step}, _n{uid})")
        self._vnames.add(iv)
        self._level[iv] = uid
        self._flat_body(op.body.block, uid)
        return uid

    def _flat_body(self, block, uid: int) -> None:
        """The ops of a loop's (or a branch's) body: tasks, inner loops and branches as its
        items, the rest emitted (elementwise over the loop's iterations when varying)."""
        self._vguard.append(f"_m{uid}")
        self._open.append(uid)
        items: list = []
        self._items[uid] = items
        ops = list(block.ops)
        while ops:
            o = ops.pop(0)
            if isinstance(o, tg.OrderedOp):
                ops[:0] = list(o.body.block.ops)  # a chain's scope: _chains makes it
            elif isinstance(o, tg.OrderPointOp):
                pass  # a chain's ordering point: _chains makes it
            elif isinstance(o, scf.ForOp):
                items.append(("loop", self._flat_loop(o, uid)))
            elif isinstance(o, scf.IfOp):
                items.extend(("loop", u) for u in self._flat_if(o, uid))
            elif isinstance(o, tg.TaskOp):
                self._vtasks.append((o, uid, len(items)))
                items.append(("task", o))
            elif isinstance(o, tg.SeqOp):
                name = self.name(o.results[0])
                self._late_defs.append((name, uid, len(items)))  # the count before the next task
                self._late.add(name)
            else:
                self.op(o)
        self._vguard.pop()
        self._open.pop()

    def _flat_if(self, op: scf.IfOp, parent: int) -> list[int]:
        """An ``scf.if`` of the flat space: each branch a loop of one trip where it is taken
        (the condition, or its negation for the else branch) and none elsewhere."""
        cond = self._expand(self.name(op.cond), parent)
        branches = [(op.true_region.block, "")]
        if op.false_region.blocks and len(op.false_region.block.ops) > 1:
            branches.append((op.false_region.block, "1 - "))
        out = []
        for block, neg in branches:
            uid = self._loops
            self._loops += 1
            self._parent[uid] = parent
            self._depth[uid] = self._depth[parent] + 1
            self.line(f"_n{uid} = {neg}_when({cond}, _m{parent})")
            self.line(f"_m{uid}, _r{uid}, _s{uid}, _ = _ragged(0, 1, _n{uid})")
            self._flat_body(block, uid)
            out.append(uid)
        return out

    def _rmap(self, src: int, dst: int) -> str:
        """The array mapping each iteration of loop ``dst`` to its iteration of ``src`` (an
        enclosing loop)."""
        parent = self._parent[dst]
        if parent == src:
            return f"_r{dst}"
        key = (f"_r{src}", dst)
        name = self._xcache.get(key)
        if name is None:
            name = self._xcache[key] = f"_R{src}_{dst}"
            self.line(f"{name} = {self._rmap(src, parent)}[_r{dst}]")
        return name

    def _expand(self, name: str, level: int | None) -> str:
        """A value of the flat space as an array over the iterations of loop ``level`` (an
        int stays an int)."""
        src = self._level.get(name)
        if src is None or src == level:
            return name
        key = (name, level)
        out = self._xcache.get(key)
        if out is None:
            out = self._xcache[key] = f"_x{len(self._xcache)}"
            self.line(f"{out} = {name}[{self._rmap(src, level)}]")
            self._vnames.add(out)
            self._level[out] = level
        return out

    def _common(self, names: list[str]) -> tuple[int | None, list[str]]:
        """The innermost level of these values and each of them expanded to it."""
        levels = [self._level[x] for x in names if x in self._level]
        if not levels:
            return None, names
        level = max(levels, key=self._depth.__getitem__)
        return level, [self._expand(x, level) for x in names]

    def _flat_positions(self) -> None:
        """Per loop ``_C`` (tasks per iteration), ``_S`` (per parent iteration, the tasks of
        all its iterations) and ``_B`` (the position of each iteration's first task), from
        which each task op's positions follow: the creation order of the per-task code."""
        loops = range(self._loops)
        for u in reversed(loops):
            terms = [str(sum(kind == "task" for kind, _ in self._items[u]))]
            for kind, x in self._items[u]:
                if kind == "loop":
                    self.line(f"_S{x} = _seg(_C{x}, _n{x})")
                    terms.append(f"_S{x}")
            self.line(f"_C{u} = {' + '.join(terms)}")
        for u in loops:
            parent = self._parent[u]
            if parent is None:
                self.line(f"_B{u} = _base(0, _C{u}, _r{u}, _s{u})")
                continue
            item = next(
                i for i, (kind, x) in enumerate(self._items[parent]) if kind == "loop" and x == u
            )
            off = self._offset(parent, item)
            self.line(f"_B{u} = _base(_B{parent} + {off}, _C{u}, _r{u}, _s{u})")

    def _offset(self, uid: int, item: int) -> str:
        """Within an iteration of loop ``uid``, the tasks created before its ``item``-th
        body item."""
        tasks, terms = 0, []
        for kind, x in self._items[uid][:item]:
            if kind == "task":
                tasks += 1
            else:
                terms.append(f"_S{x}")
        return " + ".join([str(tasks), *terms])

    def _flat_task(self, op: tg.TaskOp, uid: int, item: int, single: bool) -> str:
        """One tg.task op of the flat space as a group: its values over its loop's iterations."""
        vn = self._vnames

        def val(expr: str) -> str:
            return self._expand(expr, uid) if expr in vn else expr

        if single:
            pos = "None"
        else:
            pos = f"_np.asarray(_B{uid} + {self._offset(uid, item)})"
        return self._task_group(op, pos, val)

    def _vector_op(self, op: Operation) -> bool:
        """Emit a varying arith op elementwise; False for anything else (emitted as usual)."""
        names = [self.name(x) for x in op.operands]
        if not any(x in self._vnames for x in names):
            return False
        if isinstance(op, memref.LoadOp):
            return self._vector_load(op, names[1:])
        level = None
        if self._flat:
            level, names = self._common(names)
        if type(op) in _VBINARY:
            b = names[1]
            if isinstance(op, _DIVISIONS) and _const(op.operands[1]) is None:
                b = f"_nonzero({names[0]}, {b})"  # raises where the per-task code would
            text = _VBINARY[type(op)].format(a=names[0], b=b)
        elif isinstance(op, arith.CmpiOp):
            from pto_wsp.lowering.cpu.pygen import _CMP

            text = f"({names[0]} {_CMP[op.predicate.value.data]} {names[1]})"
        elif isinstance(op, arith.SelectOp):
            text = f"_np.where({names[0]}, {names[1]}, {names[2]})"
        elif isinstance(op, _CASTS):
            text = names[0]
        else:
            return False
        result = self.name(op.results[0])
        self.line(f"{result} = {text}")
        self._vnames.add(result)
        if level is not None:
            self._level[result] = level
        return True

    def _texpr(self, tensor: str) -> str:
        """A folded view's tensor name as a Python expression (a literal, or a callee's
        ``v1.name``)."""
        return self.tensor_expr.get(tensor) or repr(tensor)

    def _root_name(self, value: SSAValue) -> str | None:
        """The tensor argument a value (a tensor argument, a folded view or a subview chain
        of one) addresses, by name; None for anything else."""
        while True:
            if value in self.tensor_args:
                return self.tensor_args[value]
            sym = self.symviews.get(value)
            if sym is not None:
                return sym.tensor
            if not isinstance(value.owner, memref.SubviewOp):
                return None
            value = value.owner.source

    def _folded_load(self, op: memref.LoadOp) -> None:
        """``memref.load`` of a folded view (a subview chain of a tensor argument): the root
        tensor's element at ``offset + index * stride`` per kept dimension, the others at
        their offset — what the load addresses — read with ``Tensor.load`` (numpy's bounds,
        on the root tensor). Task by task, or in a nest as a gather (varying) or once where
        its loops run (invariant)."""
        sym = self.symviews[op.memref]
        root = next(self.name(v) for v, n in self.tensor_args.items() if n == sym.tensor)
        exprs = list(sym.offsets)
        for i, dim in zip(op.indices, sym.kept):
            stride = sym.strides[dim]
            term = self.name(i) if stride == "1" else f"{self.name(i)} * {stride}"
            exprs[dim] = term if exprs[dim] == "0" else f"{exprs[dim]} + {term}"
        index = [self._temp(e) for e in exprs]
        result = self.name(op.res)
        if self._vtasks is not None and any(x in self._vnames for x in index):
            self._vector_load(op, index, root)
            return
        load = f"{root}.load({', '.join(index)})"
        if self._vtasks is not None and self._vguard:
            load += f" if {' and '.join(self._vguard)} else 0"  # only if its loops run
        self.line(f"{result} = {load}")

    def _vector_load(self, op: memref.LoadOp, index: list[str], tensor: str = "") -> bool:
        """A load whose index varies: a gather, once per iteration of its loops (where the
        per-task code loads); ``tensor``: the root tensor of a folded view's load."""
        result, tensor = self.name(op.res), tensor or self.name(op.memref)
        if self._flat:
            here = self._open[-1]
            index = [self._expand(x, here) for x in index]
            self.line(f"{result} = _gather({tensor}, {_tup(index)})")
            self._level[result] = here
        else:
            shape = ["1"] * self._rank
            for uid in self._open:
                shape[uid] = f"_n{uid}"
            self.line(f"{result} = _gather({tensor}, {_tup(index)}, {_tup(shape)})")
        self._vnames.add(result)
        return True

    def _vector_task(self, op: tg.TaskOp, path: list, single: bool) -> str:
        k = self._loops
        self._loops += 1
        shape = [1] * self._rank
        for uid, _ in path:
            shape[uid] = f"_n{uid}"
        sh = f"_sh{k}"
        self.line(f"{sh} = ({''.join(str(x) + ', ' for x in shape)})")
        vn = self._vnames
        flat: dict[str, str] = {}

        def val(expr: str) -> str:
            if expr not in vn:
                return expr
            name = flat.get(expr)
            if name is None:
                name = flat[expr] = f"_f{k}_{len(flat)}"
                self.line(f"{name} = _flat({expr}, {sh})")
            return name

        if single:
            pos = "None"
        else:
            terms = " + ".join(f"_i{uid} * _c{uid} + ({off})" for uid, off in path)
            pos = f"_flat(_np.asarray({terms}), {sh})"
        return self._task_group(op, pos, val)

    def _task_group(self, op: tg.TaskOp, pos: str, val: Callable[[str], str]) -> str:
        """A task op's group of ``add_tasks``: ``val`` gives a value's per-task form."""
        vn = self._vnames
        kernel = op.kernel.root_reference.data

        def region(r: SSAValue, access: str) -> str:
            sym = self.symviews.get(r)
            parts = [] if sym is None else [*sym.offsets, *sym.sizes, *sym.strides]
            if sym is not None and "?" not in sym.sizes and any(x in vn for x in parts):
                unit = all(x == "1" for x in sym.strides)
                return (
                    f"_BR({self._texpr(sym.tensor)}, {_tup(val(x) for x in sym.offsets)}, "
                    f"{_tup(val(x) for x in sym.sizes)}, {_tup(val(x) for x in sym.strides)}, "
                    f"{access!r}, {sym.kept!r}, {unit})"
                )
            return self._region_expr(r, access)

        return f"({kernel!r}, {pos}, {', '.join(self.task_args(op, val, region))})"

    # --- folded views ----------------------------------------------------------------------

    def _temp(self, expr: str) -> str:
        """``expr`` as a variable (emitted once) unless it is already a name or a literal."""
        if _is_simple(expr):
            return expr
        level = None
        if self._flat:  # the values over one loop's iterations: expanded to the innermost
            level, names = self._common(_IDENT.findall(expr))
            subst = dict(zip(_IDENT.findall(expr), names))
            expr = _IDENT.sub(lambda m: subst[m.group()], expr)
        self._temps += 1
        name = f"_t{self._temps}"
        self.line(f"{name} = {expr}")
        if self._vnames and any(x in self._vnames for x in _IDENT.findall(expr)):
            self._vnames.add(name)
            if level is not None:
                self._level[name] = level
        return name

    def _source_sym(self, value: SSAValue) -> _Sym | None:
        sym = self.symviews.get(value)
        if sym is not None:
            return sym
        name = self.tensor_args.get(value)
        if name is None:
            return None
        rank = len(value.type.get_shape())
        return _Sym(name, ["0"] * rank, ["?"] * rank, ["1"] * rank, tuple(range(rank)))

    def _materialize(self, value: SSAValue) -> None:
        """Give a folded view a Python variable (a pygen View) for the ops that need one."""
        sym = self.symviews.get(value)
        if sym is None or sym.materialized:
            return
        sym.materialized = True
        if self._vtasks is not None:
            self._voutside = True  # a name later code may read: not a cached nest
        self.line(
            f"{self.name(value)} = _View({self._texpr(sym.tensor)}, {_tup(sym.offsets)}, "
            f"{_tup(sym.sizes)}, "
            f"{_tup(sym.strides)}, {sym.kept!r})"
        )

    def subview(self, op) -> None:
        foldable = all(
            isinstance(use.operation, memref.SubviewOp | tg.TaskOp | memref.LoadOp)
            for use in op.result.uses
        )
        sym = self._source_sym(op.source)
        if sym is None or not foldable:
            self._materialize(op.source)
            super().subview(op)
            return

        def values(static, dynamic) -> list[str]:
            dyn = iter(dynamic)
            return [self.name(next(dyn)) if v == DYNAMIC_INDEX else str(v) for v in static]

        offsets = values(op.static_offsets.get_values(), op.offsets)
        sizes = values(op.static_sizes.get_values(), op.sizes)
        strides = values(op.static_strides.get_values(), op.strides)
        mask = _rank_reduction_mask(
            list(op.static_sizes.get_values()), list(op.result.type.get_shape())
        )
        off, size, stride = list(sym.offsets), list(sym.sizes), list(sym.strides)
        kept = []
        for i, dim in enumerate(sym.kept):
            o, st = offsets[i], stride[dim]
            term = "0" if o == "0" else o if st == "1" else f"{o} * {st}"
            if term != "0":
                off[dim] = self._temp(term if off[dim] == "0" else f"{off[dim]} + {term}")
            size[dim] = sizes[i]
            if strides[i] != "1":
                stride[dim] = self._temp(strides[i] if st == "1" else f"{st} * {strides[i]}")
            if mask[i]:
                kept.append(dim)
        self.symviews[op.result] = _Sym(sym.tensor, off, size, stride, tuple(kept))

    def _region_expr(self, value: SSAValue, access: str) -> str:
        sym = self.symviews.get(value)
        if sym is None or "?" in sym.sizes:
            self._materialize(value)
            return f"_region({self.name(value)}, {access!r})"
        unit = all(x == "1" for x in sym.strides)
        return (
            f"_R({self._texpr(sym.tensor)}, {_tup(sym.offsets)}, {_tup(sym.sizes)}, "
            f"{_tup(sym.strides)}, "
            f"{access!r}, {sym.kept!r}, {unit})"
        )

    def _need_process(self, op: Operation) -> None:
        if self.replica is None:
            self.fail(op, f"{op.name} outside a tg.process")

    def send(self, op: tg.SendOp) -> None:
        self._need_process(op)
        queue = op.queue.root_reference.data
        self.sends.add(queue)
        coords = "".join(
            f"({n.data!r}, {self.name(v)}), " for n, v in zip(op.coord_names, op.coords)
        )
        self.line("_b.begin_send()")
        self.in_send = True
        self.block(op.body.block)
        self.in_send = False
        message = f"_msg{len(self.names)}"
        self.line(f"{message} = _b.end_send(({coords}))")
        request = "try_send" if op.nonblocking is not None else "send"
        self.line(f"yield ({request!r}, {queue!r}, {message})")

    def consume(self, op: tg.ConsumeOp) -> None:
        self._need_process(op)
        queue = op.queue.root_reference.data
        self.receives.add(queue)
        m = self.name(op.message)
        self.line("while True:")
        self.indent += 1
        self.line(f"{m} = yield ('recv', {queue!r})")
        self.line(f"if {m} is None:")
        self.line("    break")
        self.line("while _b.window_full():")
        self.line("    yield ('window',)")
        self.line(f"_b.issue_message({m}, {self.replica})")
        self.block(op.body.block)
        self.line("yield ('wait',)")
        self.indent -= 1


@dataclass
class ProcessCode:
    """One compiled process: its generator function and the queues it sends and receives."""

    name: str
    replicas: int
    function: Callable[..., Any]
    sends: set[str]
    receives: set[str]


@dataclass
class SimProgram:
    """A tg.program compiled for the simulator: a main function, or a pipeline's processes."""

    name: str
    compiled: CompiledProgram  # arguments and binding (main function None for a pipeline)
    source: str
    processes: list[ProcessCode] = field(default_factory=list)
    queues: list[tuple[str, int, bool]] = field(default_factory=list)
    stream_keyed: bool = False

    @property
    def is_pipeline(self) -> bool:
        return bool(self.processes)


def _namespace() -> dict[str, Any]:
    return {
        "_view": _view_cached,
        "_region": _region,
        "_R": ViewRegion.of,
        "_View": View,
        "_divsi": _divsi,
        "_remsi": _remsi,
        "_np": np,
        "_vdivsi": _vdivsi,
        "_vremsi": _vremsi,
        "_axis": _axis,
        "_flat": _flat,
        "_BR": BatchRegion,
        "_chains": add_chains,
        "_skey": _skey,
        "_dkey": _dkey,
        "_site_put": _site_put,
        "_gather": _gather,
        "_nonzero": _nonzero,
        "_trips": _trips,
        "_ragged": _ragged,
        "_seg": _seg,
        "_when": _when,
        "_base": _base,
        "_fallback": _fallback,
    }


#: When a list: every program compiled appends its inventory, (program, location, kernels,
#: what its loop nest became: "batch", "chains", "per task: why") — docs/batchgen.md
#: "Inventory", ``bench/bench_data_nests.py --inventory``.
NESTS: list | None = None


def _inventory(program: str, gen: _SimGenerator) -> None:
    if NESTS is not None:
        NESTS.extend((program, *nest) for nest in gen.nests)


def _generator(
    program: tg.ProgramOp,
    batch: bool | None = None,
    fold: bool = True,
    sites: bool = True,
    callee: bool = False,
) -> _SimGenerator:
    """A generator that knows the program's tensor arguments by name (for folded views).

    A ``tg.call`` callee's tensor arguments are the caller's tensors: ``fold=False`` keeps
    its views runtime View objects; folded, a tensor argument ``v1`` is named ``v1.name``
    in the code (the callee's code then requires whole tensors: ``_compile_function``)."""
    gen = _SimGenerator()
    gen.batch = BATCH_LOOPS if batch is None else batch
    gen.keep_sites = sites
    gen.callee = callee or not fold
    if not fold:
        return gen
    if gen.callee:
        for arg in program.body.block.args:
            gen.name(arg)  # the parameters' names in order
    for arg, name in zip(program.body.block.args, program.arg_names):
        if isinstance(arg.type, MemRefType):
            if gen.callee:  # the caller's tensor: its name when the callee runs
                var = gen.name(arg)
                gen.tensor_args[arg] = var
                gen.tensor_expr[var] = f"{var}.name"
            else:
                gen.tensor_args[arg] = name.data
    return gen


def _only_read(value: SSAValue) -> bool:
    """Whether every use of ``value`` (a tensor argument), through subview chains, reads it:
    a ``tg.task`` resource with access ``in``, a ``memref.load``, a ``memref.dim``. Anything
    else (another access, a ``tg.call`` operand whose callee could write it, an op not
    analysed here) means it may be written."""
    work = [value]
    while work:
        v = work.pop()
        for use in list(v.uses):
            op = use.operation
            if isinstance(op, memref.SubviewOp) and op.source is v:
                work.append(op.result)
            elif isinstance(op, memref.LoadOp) and op.memref is v:
                continue
            elif isinstance(op, memref.DimOp) and op.source is v:
                continue
            elif isinstance(op, tg.TaskOp):
                access = [a.data for a in op.access.data]
                resources = list(op.resources)
                if len(access) != len(resources) or any(p is v for p in op.params):
                    return False
                if not any(r is v for r in resources):
                    return False  # a coordinate, a pool, ...: not a region
                if any(r is v and a != "in" for r, a in zip(resources, access)):
                    return False
            else:
                return False
    return True


def read_only_args(program: tg.ProgramOp) -> tuple[str, ...]:
    """The names of ``program``'s tensor arguments that no task of it writes: every use, in
    the program and its process bodies, through subview chains, is a read (``_only_read``).
    The builder is told (``GraphBuilder.read_only``) before the first task: their accesses
    take no part in dependency inference (docs/batchgen.md "Tensors no task writes").
    Conservative: anything not analysed counts as a write."""
    try:
        return tuple(
            name.data
            for arg, name in zip(program.body.block.args, program.arg_names)
            if isinstance(arg.type, MemRefType) and _only_read(arg)
        )
    except Exception:  # an op shaped otherwise than expected: nothing is read-only
        return ()


def _compile_function(
    program: tg.ProgramOp,
    module: ModuleOp | None,
    seen: dict[str, CompiledProgram],
    batch: bool | None = None,
    callee: bool = False,
    sites: bool = True,
    fold: bool = True,
) -> CompiledProgram:
    """A plain (non-pipeline) program, with its tg.call callees; ``sites``: its regular nests
    keep their results per key (docs/batchgen.md "Batch sites"), for a program run again.

    A callee (``callee``) with tensor arguments is compiled, when batches are on, twice: its
    subviews folded onto the tensors it is given (named as they are when it runs: its nests
    batch as the caller's), run when every tensor argument is a whole tensor; and with
    runtime views (``fold=False``), run otherwise (a caller passing a subview)."""
    name = program.sym_name.data
    if name in seen:
        return seen[name]
    tensors = [a for a in program.body.block.args if isinstance(a.type, MemRefType)]
    events = tg_events.uses_events(program, module)
    if events:  # events see every task's stream: task by task (GraphBuilder.use_events)
        batch = False
    batching = BATCH_LOOPS if batch is None else batch
    folded = callee and fold and batching and bool(tensors)
    gen = _generator(program, batch, fold=not callee or folded, sites=sites, callee=callee)
    params = [gen.name(a) for a in program.body.block.args]
    gen.block(program.body.block)
    _inventory(name, gen)
    header = f"def _program(_b{''.join(', ' + p for p in params)}):"
    head = [header, "    pass"] + (["    _b.use_events()"] if events else [])
    unfolded = None
    if folded:
        # Whole tensors (the caller's Tensor objects) run the folded code; views the other.
        unfolded = _compile_function(program, module, {}, batch, True, sites, fold=False)
        whole = " and ".join(f"{gen.name(a)}.__class__ is _Tensor" for a in tensors)
        head += [
            f"    if not ({whole}):",
            f"        return _unfolded(_b{''.join(', ' + p for p in params)})",
        ]
    read_only = () if callee else read_only_args(program)
    if read_only:
        # Tensors no task writes: no part in dependency inference (builders that can).
        head += [
            "    _ro = getattr(_b, 'read_only', None)",
            "    if _ro is not None:",
            f"        _ro({read_only!r})",
        ]
    source = "\n".join([*head, *gen.lines]) + "\n"
    namespace = _namespace()
    namespace.update((site, {}) for site in gen.sites)
    namespace.update(gen.constants)
    if unfolded is not None:
        namespace["_unfolded"] = unfolded.function
        namespace["_Tensor"] = Tensor
    callees: dict[str, CompiledProgram] = {}
    for callee in sorted(gen.calls):
        target = _find_program(module, callee, program)
        callees[callee] = _compile_function(target, module, seen, batch, True, sites)
        namespace[f"_call_{callee}"] = callees[callee].function
    exec_generated(source, f"<tg.program @{name}>", namespace)
    compiled = CompiledProgram(
        name,
        [n.data for n in program.arg_names],
        list(program.function_type.inputs.data),
        source,
        namespace["_program"],
        callees,
    )
    seen[name] = compiled
    return compiled


def _find_program(module: ModuleOp | None, name: str, at: Operation) -> tg.ProgramOp:
    if module is not None:
        for op in module.ops:
            if isinstance(op, tg.ProgramOp) and op.sym_name.data == name:
                return op
    where = location_of(at)
    raise CodegenError(f"{where + ': ' if where else ''}tg.call of unknown program @{name}")


def stream_keyed(program: tg.ProgramOp) -> bool:
    """Whether the program's tasks give their stream (stream_by)."""
    return any(isinstance(op, tg.TaskOp) and op.stream is not None for op in program.walk())


def compile_sim_program(
    program: tg.ProgramOp, module: ModuleOp | None = None, batch: bool | None = None
) -> SimProgram:
    """Translate one ``tg.program`` (and the programs it calls) to Python for the simulator.

    ``batch``: emit regular loop nests as numpy batches (default ``BATCH_LOOPS``)."""
    check_no_recursion(program, module)
    name = program.sym_name.data
    arg_names = [n.data for n in program.arg_names]
    arg_types = list(program.function_type.inputs.data)
    if not program.processes():
        compiled = _compile_function(program, module, {}, batch)
        return SimProgram(name, compiled, compiled.source, stream_keyed=stream_keyed(program))
    queues = [
        (q.sym_name.data, q.capacity.value.data, isinstance(q.element_type, csp.SignalType))
        for q in program.body.block.ops
        if isinstance(q, tg.QueueOp)
    ]
    _check_replicas(program)
    processes: list[ProcessCode] = []
    sources: list[str] = []
    namespace = _namespace()
    seen: dict[str, CompiledProgram] = {}
    for process in program.processes():
        gen = _generator(program, batch)
        params = [gen.name(a) for a in program.body.block.args]
        replica = gen.name(process.replica)
        gen.replica = replica
        gen.block(process.body.block)
        _inventory(f"{name}::{process.sym_name.data}", gen)
        fn_name = f"_process_{process.sym_name.data}"
        namespace.update(gen.constants)
        header = f"def {fn_name}(_b{''.join(', ' + p for p in params)}, {replica}):"
        source = "\n".join([header, *gen.lines, "    yield ('wait',)"]) + "\n"
        sources.append(source)
        for callee in sorted(gen.calls):
            target = _find_program(module, callee, program)
            namespace[f"_call_{callee}"] = _compile_function(
                target, module, seen, batch, callee=True
            ).function
        exec_generated(source, f"<tg.process @{name}::{process.sym_name.data}>", namespace)
        processes.append(
            ProcessCode(
                process.sym_name.data,
                process.replicas.value.data,
                namespace[fn_name],
                gen.sends,
                gen.receives,
            )
        )
    compiled = CompiledProgram(name, arg_names, arg_types, "\n".join(sources), _no_main, {})
    return SimProgram(
        name,
        compiled,
        compiled.source,
        processes,
        queues,
        stream_keyed=stream_keyed(program),
    )


#: The most processes (replicas counted) a pipeline may run: one generator each, made before
#: the run, so a count beyond it would spend minutes creating them (as many as workers).
MAX_PROCESSES = 1 << 16


def _check_replicas(program: tg.ProgramOp) -> None:
    processes = list(program.processes())
    total = sum(p.replicas.value.data for p in processes)
    if total > MAX_PROCESSES:
        largest = max(processes, key=lambda p: p.replicas.value.data)
        where = location_of(largest)
        raise CodegenError(
            f"{where + ': ' if where else ''}tg.process @{largest.sym_name.data} has "
            f"{largest.replicas.value.data:,} replicas ({total:,} processes in the pipeline); "
            f"the simulator runs at most {MAX_PROCESSES:,}"
        )


def _no_main(*_: Any) -> None:
    raise RuntimeError("a pipeline has no main function: run its processes")
