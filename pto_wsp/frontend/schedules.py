"""Schedules (seed 001 §5, seed 004 §6.4): how a workload's tasks run, never what they compute.

``w.schedule()`` starts a schedule (``sched.schedule @w_sched for @w``); each method returns
a new schedule with one more directive (at most one of each kind)::

    s = (attention.schedule()
         .dispatch(DispatchPolicy.affinity("b"))
         .streams(2)
         .stream_by(lambda b: b % 2)
         .timing(TimingPolicy.immediate()))

Key functions (``stream_by``, ``hash``, ``dispatch_by``, ``priority``,
``dispatch_threshold``) are functions of named task coordinates — the names of the loops
(``b``, ``h``) and, in a pipeline, ``replica``. They are called once, with placeholder
coordinates, and the expression they return becomes the directive's key region. A key takes
its coordinates by parameter name (``lambda b, h: ...``) or, with one parameter that is not
a coordinate, by attribute (``lambda t: t.b % 2``). Such a key may also read task data
(seed 001 §5.2): ``t.param("seq_len")``, the task's scalar parameter of that name, and
tensors at coordinates (``seq_lens[t.b]``); a Python ``if`` on them is traced both ways
(``0 if t.param("seq_len") > 2048 else 1``) into one ``arith.select``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, Operation, Region, SSAValue

from pto_wsp.dialects import sched as ops
from pto_wsp.errors import CompileError, user_location

from .axes import Axis, Dense
from .definitions import Bound
from .expressions import BRANCH_HOOK, Arg, Expr, as_expr, as_index, is_int
from .tensors import Load, Tensor
from .workloads import Workload

if TYPE_CHECKING:
    from .program import ModuleBuilder


class KeyCoord(Arg):
    """A task coordinate inside a key function."""

    kind = "task coordinate"
    nonneg = True


class KeyParam(Arg):
    """A scalar parameter of the task's kernel inside a key function (``t.param("n")``)."""

    kind = "task parameter"

    @property
    def key(self) -> tuple:
        return ("key param", self.name)

    def __repr__(self) -> str:
        return f"param({self.name!r})"


class Choice(Expr):
    """``a if pred else b`` in a key: ``arith.select``."""

    def __init__(self, pred: Expr, then: Expr, other: Expr):
        super().__init__()
        self.pred, self.then, self.other = pred, then, other
        self.nonneg = then.nonneg and other.nonneg
        self.is_bool = then.is_bool and other.is_bool

    def operands(self) -> tuple[Expr, ...]:
        return (self.pred, self.then, self.other)

    @property
    def key(self) -> tuple:
        return ("select", self.pred.key, self.then.key, self.other.key)

    def build(self, values: Sequence[SSAValue]) -> list[Operation]:
        return [arith.SelectOp(*values)]

    def __repr__(self) -> str:
        return f"({self.then!r} if {self.pred!r} else {self.other!r})"


@dataclass(frozen=True)
class KeyInput:
    """One argument of a key region: what it stands for, its name, type and lowering key."""

    source: str  # "coord", "param" or "tensor" (sched.KEY_SOURCES)
    name: str
    type: Attribute
    bind: tuple


class Key:
    """A traced key function: the task data it reads and the index it computes."""

    def __init__(self, inputs: list[KeyInput], expr: Expr):
        self.inputs, self.expr = inputs, expr

    @property
    def names(self) -> list[str]:
        return [i.name for i in self.inputs]

    @property
    def sources(self) -> list[str]:
        return [i.source for i in self.inputs]


class _TaskView(Expr):
    """The task a ``lambda t: t.b`` key receives: its attributes are the task coordinates,
    ``t.param(name)`` its kernel's scalar parameter of that name.

    Used as a value itself, it is a parameter name that is no coordinate: an error.
    """

    def __init__(self, name: str, coordinates: list[str], construct: str, target: str):
        super().__init__()
        self._name, self._coordinates = name, coordinates
        self._construct, self._target = construct, target
        self._used: list[str] = []

    def as_value(self, construct: str) -> Expr:
        """A key parameter that names no coordinate."""
        raise CompileError(self._construct, _unknown(self._name, self._coordinates, self._target))

    def param(self, name: str) -> KeyParam:
        """The task's scalar parameter ``name`` (its kernel's parameter of that name)."""
        if not isinstance(name, str) or not name.isidentifier():
            raise CompileError(self._construct, f"param() takes a parameter name, got {name!r}")
        return KeyParam(name)

    def __getattr__(self, name: str) -> KeyCoord:
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self._coordinates:
            raise CompileError(self._construct, _unknown(name, self._coordinates, self._target))
        if name not in self._used:
            self._used.append(name)
        return KeyCoord(name)


def _unknown(name: str, coordinates: list[str], target: str) -> str:
    known = ", ".join(coordinates) or "none"
    return f"unknown task coordinate {name!r} (coordinates of {target}: {known})"


#: How many outcomes of Python ``if``s on runtime values one key may trace.
MAX_KEY_PATHS = 64


class _Branch(Exception):
    """A traced run reached a Python ``if`` on a runtime value it has no outcome for yet."""

    def __init__(self, pred: Expr):
        super().__init__()
        self.pred = pred


def _predicate(value: Expr) -> Expr:
    """What ``if value:`` tests: a predicate itself, an index compared with 0."""
    return value if value.is_bool else value != 0


def _traced(call: Callable[[], Any], construct: str) -> Any:
    """Call a key once per outcome of its Python ``if``s on runtime values; a nest of
    ``Choice``s over the results, so ``0 if t.param("n") > 8 else 1`` is one key."""
    runs = [0]

    def explore(prefix: tuple[bool, ...]) -> Any:
        runs[0] += 1
        if runs[0] > MAX_KEY_PATHS:
            raise CompileError(
                construct, f"a key with more than {MAX_KEY_PATHS} paths through its ifs"
            )
        asked: list[bool] = []

        def decide(value: Expr) -> bool:
            if len(asked) < len(prefix):
                asked.append(prefix[len(asked)])
                return asked[-1]
            raise _Branch(_predicate(value))

        BRANCH_HOOK.append(decide)
        try:
            return call()
        except _Branch as branch:
            then = as_expr(explore((*prefix, True)), construct, "a key (an index)")
            other = as_expr(explore((*prefix, False)), construct, "a key (an index)")
            return Choice(branch.pred, then, other)
        finally:
            BRANCH_HOOK.pop()

    return explore(())


def _reads(expr: Expr) -> tuple[list[str], list[Tensor]]:
    """The task parameters and the tensors a key expression reads, in order of first use."""
    params: dict[str, None] = {}
    tensors: dict[tuple, Tensor] = {}
    stack = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, KeyParam):
            params.setdefault(e.name)
        elif isinstance(e, Load):
            tensors.setdefault(e.view.tensor.key, e.view.tensor)
        stack.extend(reversed(e.operands()))
    return list(params), list(tensors.values())


def trace_key(fn: Any, coordinates: list[str], construct: str, target: str) -> Key:
    """Call a key function with placeholder task data; the key it computes."""
    if not callable(fn):
        raise CompileError(construct, f"a key is a function of task coordinates, got {fn!r}")
    params = [
        p.name
        for p in inspect.signature(fn).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    if len(params) == 1 and params[0] not in coordinates:
        task = _TaskView(params[0], coordinates, construct, target)
        value = _traced(lambda: fn(task), construct)
        names = task._used
    else:
        for name in params:
            if name not in coordinates:
                raise CompileError(construct, _unknown(name, coordinates, target))
        names = params
        value = _traced(lambda: fn(*[KeyCoord(n) for n in names]), construct)
    expr = as_index(value, construct, "a key (an index)")
    read_params, tensors = _reads(expr)
    inputs = [KeyInput("coord", n, IndexType(), ("arg", n)) for n in names]
    inputs += [KeyInput("param", n, IndexType(), KeyParam(n).key) for n in read_params]
    inputs += [KeyInput("tensor", t.name, t.type, t.key) for t in tensors]
    return Key(inputs, expr)


# --------------------------------------------------------------------------- policies


class _Policy:
    def __init__(self, construct: str, policy: str, **fields: Any):
        self.construct, self.policy, self.fields = construct, policy, fields
        self.loc = user_location()


def _count(construct: str, n: Any, what: str = "count") -> int:
    if not is_int(n) or int(n) <= 0:
        raise CompileError(construct, f"the {what} is an int > 0, got {n!r}")
    return int(n)


class DispatchPolicy:
    """Which executor (AICPU) takes each task (seed 001 §5.2)."""

    @staticmethod
    def round_robin(n: int) -> _Policy:
        """Task i goes to executor i mod n."""
        return _Policy("round_robin", "round_robin", count=_count("round_robin", n))

    @staticmethod
    def affinity(axis: Any) -> _Policy:
        """Tasks with the same coordinate ``axis`` (a loop name or its Axis) share an executor."""
        return _Policy("affinity", "affinity", axis=axis)

    @staticmethod
    def hash(key: Callable[..., Any]) -> _Policy:
        """The executor is chosen by a hash of the key."""
        return _Policy("hash", "hash", key=key)

    @staticmethod
    def range(axis: Any, n: int) -> _Policy:
        """Coordinate ``axis`` is split into ``n`` contiguous blocks, one per executor."""
        return _Policy("range", "range", axis=axis, count=_count("range", n))

    @staticmethod
    def work_steal() -> _Policy:
        """Idle executors steal ready tasks."""
        return _Policy("work_steal", "work_steal")

    @staticmethod
    def dispatch_by(key: Callable[..., Any]) -> _Policy:
        """The key is the executor index."""
        return _Policy("dispatch_by", "dispatch_by", key=key)


class IssuePolicy:
    """The order ready tasks issue in (seed 001 §5.3)."""

    @staticmethod
    def fifo() -> _Policy:
        """In the order they become ready."""
        return _Policy("fifo", "fifo")

    @staticmethod
    def priority(key: Callable[..., Any]) -> _Policy:
        """Lowest key first."""
        return _Policy("priority", "priority", key=key)

    @staticmethod
    def deadline(key: Callable[..., Any]) -> _Policy:
        """Earliest deadline first: the key is each task's deadline (priority by it)."""
        return _Policy("deadline", "priority", key=key)

    @staticmethod
    def single_stream() -> _Policy:
        """Every task in stream 0: tasks start in issue order (``sched.streams 1``)."""
        return _Policy("single_stream", "single_stream")

    @staticmethod
    def per_axis(axis: Any) -> _Policy:
        """One stream per value of coordinate ``axis`` (``stream_by`` it over its extent)."""
        return _Policy("per_axis", "per_axis", axis=axis)


class TimingPolicy:
    """When tasks are released (seed 001 §5.4)."""

    @staticmethod
    def immediate() -> _Policy:
        """As soon as their dependencies are met."""
        return _Policy("immediate", "immediate")

    @staticmethod
    def batched(n: int) -> _Policy:
        """n tasks at a time."""
        return _Policy("batched", "batched", count=_count("batched", n))

    @staticmethod
    def interleaved(n: int) -> _Policy:
        """Round-robin over n streams."""
        return _Policy("interleaved", "interleaved", count=_count("interleaved", n))

    @staticmethod
    def rate_limit(n: int) -> _Policy:
        """At most n tasks per millisecond."""
        return _Policy("rate_limit", "rate_limit", count=_count("rate_limit", n))


class Shard:
    """``Shard(g)``: a tensor dimension split across grid axis g (``.layout``)."""

    def __init__(self, axis: int):
        if not is_int(axis) or int(axis) < 0:
            raise CompileError("Shard", f"Shard takes a grid axis (an int >= 0), got {axis!r}")
        self.axis = int(axis)


class Replicate:
    """``Replicate()``: a tensor dimension kept whole on every grid cell (``.layout``)."""


# --------------------------------------------------------------------------- directives


class _Directive:
    """One directive: builds its ``sched`` op when the module is built."""

    def __init__(self, kind: str, build: Callable[[ModuleBuilder], Operation]):
        self.kind, self.build = kind, build
        self.loc = user_location()


class Schedule:
    """A schedule bound to a workload or pipeline (``sched.schedule``); methods chain."""

    def __init__(
        self, target: Workload, name: str | None = None, directives: tuple[_Directive, ...] = ()
    ):
        if not isinstance(target, Workload):
            raise CompileError("schedule", f"a schedule is bound to a workload, got {target!r}")
        self.target, self.name, self.directives = target, name, directives
        self.loc = user_location()

    # ------------------------------------------------------------------ helpers

    @property
    def _target_name(self) -> str:
        return f"@{self.target.name or 'workload'}"

    def _with(self, kind: str, build: Callable[[ModuleBuilder], Operation]) -> Schedule:
        for d in self.directives:
            if d.kind == kind:
                raise CompileError(
                    kind, f"the schedule already has a {kind} directive (set at {d.loc})"
                )
        directive = _Directive(kind, build)
        result = Schedule(self.target, self.name, (*self.directives, directive))
        result.loc = self.loc
        return result

    def _key(self, fn: Any, construct: str) -> Key:
        return trace_key(fn, self.target.coordinates(), construct, self._target_name)

    def _coordinate(self, axis: Any, construct: str) -> str:
        """A coordinate name given as a string or as the Axis a loop iterates."""
        coordinates = self.target.coordinates()
        if isinstance(axis, str):
            if axis not in coordinates:
                raise CompileError(construct, _unknown(axis, coordinates, self._target_name))
            return axis
        if isinstance(axis, Axis):
            names = [n for names, a in self.target.loops() if a is axis for n in names]
            unique = list(dict.fromkeys(names))
            if len(unique) == 1:
                return unique[0]
            why = "no loop iterates it" if not unique else f"loops name it {', '.join(unique)}"
            raise CompileError(construct, f"{axis!r} does not name one coordinate ({why})")
        raise CompileError(construct, f"expected a coordinate name or an axis, got {axis!r}")

    @staticmethod
    def _region(builder: ModuleBuilder, key: Key) -> Region:
        return builder.key_region(key)

    # ------------------------------------------------------------------ directives

    def dispatch(self, policy: _Policy) -> Schedule:
        """Which executor takes each task: a ``DispatchPolicy``."""
        _check_policy(policy, DispatchPolicy, "dispatch")
        f = policy.fields
        if "key" in f:
            key = self._key(f["key"], policy.construct)
            factory = ops.DispatchOp.hash if policy.policy == "hash" else ops.DispatchOp.dispatch_by
            return self._with(
                "dispatch", lambda b: factory(key.names, self._region(b, key), key.sources)
            )
        axis = self._coordinate(f["axis"], policy.construct) if "axis" in f else None
        count = f.get("count")
        return self._with("dispatch", lambda b: ops.DispatchOp(policy.policy, axis, count))

    def streams(self, n: int) -> Schedule:
        """Each executor issues into ``n`` streams."""
        count = _count("streams", n)
        return self._with("streams", lambda b: ops.StreamsOp(count))

    def stream_by(self, key: Callable[..., Any]) -> Schedule:
        """The stream of each task: a key of its coordinates (needs ``.streams(n)``)."""
        traced = self._key(key, "stream_by")
        return self._with(
            "stream_by",
            lambda b: ops.StreamByOp(traced.names, self._region(b, traced), traced.sources),
        )

    def issue(self, policy: _Policy) -> Schedule:
        """The order of ready tasks: an ``IssuePolicy``."""
        _check_policy(policy, IssuePolicy, "issue")
        if policy.policy == "fifo":
            return self._with("issue", lambda b: ops.IssueOp.fifo())
        if policy.policy == "single_stream":
            return self._with("streams", lambda b: ops.StreamsOp(1))
        if policy.policy == "per_axis":
            return self._per_axis(policy.fields["axis"])
        key = self._key(policy.fields["key"], "priority")
        return self._with(
            "issue", lambda b: ops.IssueOp.priority(key.names, self._region(b, key), key.sources)
        )

    def _per_axis(self, axis: Any) -> Schedule:
        """stream_by the coordinate, over as many streams as its static extent (or the
        schedule's ``.streams(n)``: value mod n)."""
        name = self._coordinate(axis, "per_axis")
        extents = {
            a.size for names, a in self.target.loops() if name in names and isinstance(a, Dense)
        }
        declared = any(d.kind == "streams" for d in self.directives)
        result = self
        if not declared:
            if len(extents) != 1:
                raise CompileError(
                    "per_axis",
                    f"coordinate {name!r} has no static extent: give .streams(n) first "
                    "(each value v then goes to stream v mod n)",
                )
            count = extents.pop()
            result = self._with("streams", lambda b: ops.StreamsOp(count))
        return result._with("stream_by", lambda b: ops.StreamByOp([name], None))

    def timing(self, policy: _Policy) -> Schedule:
        """When tasks are released: a ``TimingPolicy``."""
        _check_policy(policy, TimingPolicy, "timing")
        count = policy.fields.get("count")
        return self._with("timing", lambda b: ops.TimingOp(policy.policy, count))

    def spatial_map(self, *grid: Any, **kw: Any) -> Schedule:
        """The grid of cores a spatial target places tasks on: ``.spatial_map((4, 4))``."""
        dims = kw.pop("grid", None)
        if kw:
            raise CompileError("spatial_map", f"unknown option {next(iter(kw))!r}")
        if dims is None:
            dims = grid[0] if len(grid) == 1 and isinstance(grid[0], tuple | list) else grid
        shape = [_count("spatial_map", d, "grid extent") for d in dims]
        if not shape:
            raise CompileError("spatial_map", "the grid needs at least one dimension")
        return self._with("spatial_map", lambda b: ops.SpatialMapOp(shape))

    def layout(self, tensor: Any, *dims: Any) -> Schedule:
        """How a tensor is spread over the grid: one ``Shard(g)`` or ``Replicate()`` per dim."""
        name = self._tensor_name(tensor)
        entries: list[int | None] = []
        for d in dims:
            if isinstance(d, Shard):
                entries.append(d.axis)
            elif isinstance(d, Replicate) or d is Replicate:
                entries.append(None)
            else:
                raise CompileError(
                    "layout", f"layout entries are Shard(g) or Replicate(), got {d!r}"
                )
        # One layout per tensor (the sched verifier's rule), so the kind names the tensor.
        return self._with(f"layout of {name}", lambda b: ops.LayoutOp(name, entries))

    def _tensor_name(self, tensor: Any) -> str:
        if isinstance(tensor, str):
            return tensor
        if not isinstance(tensor, Tensor):
            raise CompileError("layout", f"layout takes a tensor (or its name), got {tensor!r}")
        if isinstance(self.target, Bound):
            for (param, _), value in zip(self.target.params, self.target.args):
                if value is tensor:
                    return param
        return tensor.name

    def dispatch_threshold(
        self, threshold: int, key: Callable[..., Any], below: str = "vector", above: str = "cube"
    ) -> Schedule:
        """Tasks whose key is below ``threshold`` go to the ``below`` pool, others ``above``."""
        if not is_int(threshold) or int(threshold) < 0:
            raise CompileError(
                "dispatch_threshold", f"the threshold is an int >= 0, got {threshold!r}"
            )
        for pool in (below, above):
            if pool not in ops.POOLS:
                raise CompileError(
                    "dispatch_threshold", f"pools are {', '.join(ops.POOLS)}, got {pool!r}"
                )
        traced = self._key(key, "dispatch_threshold")
        t = int(threshold)
        return self._with(
            "dispatch_threshold",
            lambda b: ops.DispatchThresholdOp(
                t, below, above, traced.names, self._region(b, traced), traced.sources
            ),
        )

    def pipeline_depth(self, depth: int, scope: str = "global") -> Schedule:
        """At most ``depth`` tasks in flight per scope (global, per_stream, per_pool)."""
        d = _count("pipeline_depth", depth, "depth")
        _one_of("pipeline_depth", "scope", scope, ops.PIPELINE_SCOPES)
        return self._with("pipeline_depth", lambda b: ops.PipelineDepthOp(d, scope))

    def task_window(self, size: int, overflow: str = "stall") -> Schedule:
        """At most ``size`` tasks generated but not finished; when full, stall or abort."""
        s = _count("task_window", size, "size")
        _one_of("task_window", "overflow", overflow, ops.OVERFLOW_POLICIES)
        return self._with("task_window", lambda b: ops.TaskWindowOp(s, overflow))

    def batch_deps(self, n: int) -> Schedule:
        """Resolve data dependencies ``n`` tasks at a time."""
        count = _count("batch_deps", n)
        return self._with("batch_deps", lambda b: ops.BatchDepsOp(count))

    # ------------------------------------------------------------------ output

    def module(self):
        """The xDSL module: kernels, the workload (and its callees), this schedule."""
        from .program import build_module

        return build_module([self])

    def compile(self, target: str = "cpu_sim", **options: Any):
        """Compile for a target (``cpu_sim``, ``aie``, ``ascend``)."""
        from .program import compile

        return compile(self, target=target, **options)

    def text(self, debuginfo: bool = False) -> str:
        """The module's text, as pto-opt prints it (``debuginfo``: with each op's location,
        as ``pto-opt --print-debuginfo``)."""
        from .program import print_module

        return print_module(self.module(), debuginfo)

    def __str__(self) -> str:
        return self.text()


def _check_policy(policy: Any, family: type, construct: str) -> None:
    names = [n for n in vars(family) if not n.startswith("_")]
    if not isinstance(policy, _Policy) or policy.construct not in names:
        raise CompileError(
            construct, f"{construct} takes a {family.__name__} ({', '.join(names)}), got {policy!r}"
        )


def _one_of(construct: str, what: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise CompileError(construct, f"{what} is one of {', '.join(allowed)}, got {value!r}")
