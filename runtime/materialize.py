"""``tg-materialize{bind="n=4,seq_lens=[1,2]"}``: run task-generation programs into graphs.

Each ``tg.program`` is compiled to Python (lowering/cpu/pygen.py) and run with the bound
values on a GraphBuilder (runtime/graph.py), which turns ordering points into edges and
infers data edges with a TensorMap; the program is replaced by the ``tg.graph`` of seed 004
§6.2's TaskGraphStorage — every task with its id, kernel, args, regions, coordinates,
placement, fanin and fanout (docs/tg.md "Static form").
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IntegerAttr, ModuleOp, i1
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from pto_wsp.dialects import tg
from pto_wsp.dialects.wsp import KernelOp
from pto_wsp.lowering.cpu.pygen import WHOLE, CodegenError, compile_program
from pto_wsp.lowering.taskgraph import DOMAINS, KIND_BARRIER, POOLS, TaskGraph
from pto_wsp.runtime import memory
from pto_wsp.runtime.graph import GraphBuilder
from pto_wsp.runtime.program import integers_only

_POOL_NAMES = {v: k for k, v in POOLS.items()}
_DOMAIN_NAMES = {v: k for k, v in DOMAINS.items()}


def parse_bindings(text: str) -> dict[str, Any]:
    """``"n=4,lens=[3,0,2],x=@file.npy"`` -> {"n": 4, "lens": array([3, 0, 2]), "x": array}."""
    bindings: dict[str, Any] = {}
    for item in _split_top_level(text):
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name.isidentifier():
            raise PassFailedException(f"tg-materialize: bad binding '{item}' (expected name=value)")
        bindings[name] = _binding_value(name, value)
    return bindings


def _split_top_level(text: str) -> list[str]:
    """Split on commas that are not inside brackets."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch in "[("
        depth -= ch in "])"
        if ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [item for item in items if item.strip()]


def _binding_value(name: str, value: str) -> Any:
    if value.startswith("@"):
        try:
            return np.load(Path(value[1:]))
        except (OSError, ValueError) as error:
            raise PassFailedException(f"tg-materialize: cannot load {name}: {error}") from None
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        raise PassFailedException(
            f"tg-materialize: {name}={value} is not an integer, a [list] or @file.npy"
        ) from None
    if isinstance(parsed, bool) or not isinstance(parsed, int | list | tuple):
        raise PassFailedException(f"tg-materialize: {name}={value} is not an integer or a list")
    # The simulator's rules (runtime/program.py): an index is a signed 64-bit integer, a
    # list a rectangular array of them.
    if isinstance(parsed, int):
        if not -(1 << 63) <= parsed < 1 << 63:
            raise PassFailedException(
                f"tg-materialize: {name} is an index: {parsed} does not fit in 64 bits"
            )
        return parsed
    if not integers_only(parsed):
        raise PassFailedException(
            f"tg-materialize: {name}={value}: a list binds integers (lengths, CSR arrays)"
        )
    try:
        return np.asarray(parsed, dtype=np.int64)
    except OverflowError:
        why = "a value does not fit in 64 bits"
    except ValueError:
        why = "its rows differ in length"
    raise PassFailedException(f"tg-materialize: {name}={value}: {why}")


#: The least memory a ``tg.node`` of the static graph takes (a task without regions: ~4 KiB
#: of xDSL objects); a graph of more nodes than the available memory holds at this rate is
#: refused as its tasks are created, not after building them.
NODE_BYTES = 4096


class _BoundedBuilder(GraphBuilder):
    """A GraphBuilder that refuses more than ``limit`` nodes as soon as they are asked for."""

    def __init__(self, shapes: dict, limit: int | None) -> None:
        super().__init__(shapes)
        self.limit = limit

    def add_task(self, *args: Any, **kwargs: Any) -> int:
        self._admit(1)
        return super().add_task(*args, **kwargs)

    def reserve(self, n: int) -> None:
        self._admit(n)

    def _admit(self, n: int) -> None:
        if self.limit is not None and self.num_nodes + n > self.limit:
            count = self.num_nodes + n
            raise MemoryError(
                memory.too_many(count) or f"a static graph of more than {self.limit:,} nodes"
            )


def materialize(module: ModuleOp, program: tg.ProgramOp, bindings: dict[str, Any]) -> TaskGraph:
    """Run one program with ``bindings`` and return its task graph."""
    try:
        compiled = compile_program(program, module)
    except CodegenError as error:
        raise PassFailedException(str(error)) from None
    shapes = {}
    try:
        args = compiled.bind(bindings)
    except KeyError as error:
        raise PassFailedException(
            f"tg-materialize: @{program.sym_name.data} needs a value for {error.args[0]} "
            f'(bind="{error.args[0]}=...")'
        ) from None
    except ValueError as error:
        raise PassFailedException(f"tg-materialize: {error}") from None
    for value in args:
        if hasattr(value, "shape") and hasattr(value, "name"):
            shapes[value.name] = [s if s is not None else WHOLE for s in value.shape]
    room = memory.available()
    builder = _BoundedBuilder(shapes, None if room is None else room // NODE_BYTES)
    try:
        with memory.pricing(NODE_BYTES, "a static graph"):
            compiled.function(builder, *args)
    except KeyError as error:
        raise PassFailedException(
            f"tg-materialize: @{program.sym_name.data} reads {error.args[0]}, which is not "
            f'bound (bind="{error.args[0]}=[...]")'
        ) from None
    except IndexError as error:
        raise PassFailedException(
            f"tg-materialize: @{program.sym_name.data}: an index is out of the bound data: {error}"
        ) from None
    return builder.build()


def graph_op(program: tg.ProgramOp, graph: TaskGraph) -> tg.GraphOp:
    """The ``tg.graph`` holding ``graph``: one ``tg.node`` per task or barrier."""
    types = list(program.function_type.inputs.data)
    names = [n.data for n in program.arg_names]
    op = tg.GraphOp(program.sym_name.data, types, names, config=program.config)
    block = op.body.block
    terminator = block.last_op
    module = program.parent_op()
    kernels = {k.sym_name.data: k.param_types for k in module.ops if isinstance(k, KernelOp)}
    nodes = [_node(graph, i, kernels) for i in range(graph.num_nodes)]
    if terminator is not None:
        block.insert_ops_before(nodes, terminator)
    else:
        block.add_ops(nodes)
    return op


def _arg(value: Any, type_: Attribute) -> IntegerAttr | FloatAttr:
    """A task's scalar as the attribute of its parameter's type."""
    if isinstance(type_, AnyFloat):
        if not np.isfinite(value):
            raise PassFailedException(
                f"tg-materialize: a task's {type_} scalar is {value}: the static form holds "
                "finite scalars"
            )
        return FloatAttr(float(value), type_)
    return IntegerAttr(int(bool(value)) if type_ == i1 else int(value), type_)


def _node(graph: TaskGraph, i: int, kernels: dict[str, list[Attribute]]) -> tg.NodeOp:
    fanout = [int(s) for s in graph.successors(i)]
    fanin = int(graph.fanin[i])
    if graph.kind[i] == KIND_BARRIER:
        return tg.NodeOp(i, "barrier", fanin=fanin, fanout=fanout)
    regions = [
        tg.RegionAttr(str(r.tensor), r.offsets, r.sizes, r.strides, r.access)
        for r in graph.regions[i]
    ]
    target = int(graph.target[i])
    name = graph.kernel_name(i)
    return tg.NodeOp(
        i,
        "task",
        kernel=name,
        args=[_arg(a, t) for a, t in zip(graph.args[i], kernels[name])],
        regions=regions,
        coords=[(n, int(v)) for n, v in graph.coords[i]],
        pool=_POOL_NAMES.get(int(graph.pool[i]), "any"),
        target=target if target >= 0 else None,
        stream=int(graph.stream[i]),
        priority=int(graph.priority[i]),
        fanin=fanin,
        fanout=fanout,
        domain=_DOMAIN_NAMES.get(int(graph.domain[i]), "host_cpu"),
    )


@dataclass(frozen=True)
class TgMaterializePass(ModulePass):
    """Replace each ``tg.program`` by the ``tg.graph`` it creates with the bound values.

    ``bind`` gives the program arguments: ``name=int`` for scalars, ``name=[...]`` or
    ``name=@file.npy`` for the arrays the program reads (lengths, CSR arrays); tensors used
    only as task regions need no binding. ``dot=FILE`` also writes the graph as Graphviz DOT.
    ``program=NAME`` materializes only that program. Pipelines are left to the simulator.
    """

    name = "tg-materialize"

    bind: str = ""
    dot: str = ""
    program: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        bindings = parse_bindings(self.bind)
        programs = [
            p
            for p in op.ops
            if isinstance(p, tg.ProgramOp)
            and not p.processes()
            and (not self.program or p.sym_name.data == self.program)
        ]
        if self.program and not programs:
            raise PassFailedException(f"tg-materialize: no program @{self.program}")
        dots = []
        for program in programs:
            graph = materialize(op, program, bindings)
            dots.append(graph.to_dot(program.sym_name.data))
            op.body.block.insert_op_before(graph_op(program, graph), program)
            program.detach()
            program.erase()
        if self.dot:
            try:
                Path(self.dot).write_text("\n".join(dots))
            except OSError as error:
                raise PassFailedException(
                    f"tg-materialize: cannot write {self.dot}: {error}"
                ) from None
