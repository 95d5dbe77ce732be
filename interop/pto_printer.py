"""Printing wsp/csp/sched IR as ``.pto`` text (seed 000 §8, §9.1 ``Printer``).

Statements print where they stand; the helper values they use (axes, views, index
arithmetic, reads, coordinates) print inline as expressions, so the helper ops vanish from
the text and ``pto_builder`` places them back by the canonical rule. Whatever ``.pto``
cannot say — an op of another dialect, a discardable attribute, a key whose arguments are
not used in order, a name shadowed where it is used — raises ``PtoExportError`` naming the
op, rather than printing text that would read back as different IR.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    i1,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException

from pto_wsp.dialects import csp, sched, wsp

from .pto_parser import DEFAULT_VERSION

#: Precedence of .pto operators: comparisons bind loosest.
_PREC = {"cmp": 1, "+": 2, "-": 2, "*": 3, "/": 3, "mod": 3}
_BINARY = {
    arith.AddiOp: "+",
    arith.SubiOp: "-",
    arith.MuliOp: "*",
    arith.DivUIOp: "/",
    arith.RemUIOp: "mod",
}
_COMPARE = {2: "<", 3: "<=", 4: ">", 5: ">=", 0: "==", 1: "!="}  # arith.cmpi predicates
_HELPERS = (
    arith.ConstantOp,
    arith.CmpiOp,
    memref.LoadOp,
    wsp.ViewOp,
    wsp.DenseOp,
    wsp.DenseDynOp,
    wsp.RaggedOp,
    wsp.SparseOp,
    csp.CoordOp,
    *_BINARY,
)
#: Module attributes the header carries.
HEADER_ATTRS = ("pto.version", "pto.targets")
#: The names .pto can write after ``@`` and ``%`` (MLIR quotes any other: ``@"k-1"``).
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class PtoExportError(DiagnosticException):
    """The IR holds something ``.pto`` cannot express; ``op`` is where."""

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(f"cannot print as .pto: {message}")
        self.op = op


def mlir_text(value: Attribute | Operation) -> str:
    stream = io.StringIO()
    printer = Printer(stream=stream)
    if isinstance(value, Operation):
        printer.print_op(value)
    else:
        printer.print_attribute(value)
    return stream.getvalue()


def type_text(type_: Attribute) -> str:
    """A parameter type: the .pto axis names, else the MLIR type."""
    if isinstance(type_, wsp.DenseAxisType):
        return f"Dense[{type_.size.data}]"
    names = {
        wsp.DenseDynAxisType: "DenseDyn",
        wsp.RaggedAxisType: "Ragged",
        wsp.SparseAxisType: "Sparse",
        wsp.TaskType: "Task",
        csp.SignalType: "Signal",
    }
    return names.get(type(type_)) or mlir_text(type_)


class PtoPrinter:
    """Prints one module; ``print_module`` raises ``PtoExportError`` on what it cannot say."""

    def __init__(self, stream: IO[str]):
        self.stream = stream
        self.indent = 0
        #: Innermost last: name -> value, and value -> name.
        self.scopes: list[dict[str, object]] = []
        self.names: dict[SSAValue, str] = {}

    def line(self, text: str) -> None:
        self.stream.write("  " * self.indent + text + "\n")

    # ------------------------------------------------------------------ names

    @staticmethod
    def ident(name: str, op: Operation) -> str:
        """``name`` if .pto can write it (an identifier), else a ``PtoExportError``."""
        if _IDENTIFIER.fullmatch(name) is None:
            raise PtoExportError(f'the name "{name}" is not a .pto identifier', op)
        return name

    def bind(self, name: str, value: object, op: Operation) -> None:
        self.ident(name, op)
        scope = self.scopes[-1]
        if name in scope and scope[name] is not value:
            raise PtoExportError(f"%{name} names two things in the same scope", op)
        scope[name] = value
        if isinstance(value, SSAValue):
            self.names[value] = name

    def scoped(self) -> _Scope:
        return _Scope(self)

    def ref(self, value: SSAValue, user: Operation) -> str:
        name = self.names.get(value)
        if name is None:
            raise PtoExportError(f"a value of type {value.type} has no name in .pto", user)
        for scope in reversed(self.scopes):
            if name in scope:
                if scope[name] is not value:
                    raise PtoExportError(
                        f"%{name} is shadowed here by another %{name}: .pto names values "
                        "by their names",
                        user,
                    )
                return f"%{name}"
        raise PtoExportError(f"%{name} is used outside its scope", user)

    # ------------------------------------------------------------------ expressions

    def expr(self, value: SSAValue, user: Operation, prec: int = 0) -> str:
        if value in self.names:
            return self.ref(value, user)
        op = value.owner
        if not isinstance(op, Operation):
            raise PtoExportError(f"a block argument of type {value.type} has no .pto name", user)
        if isinstance(op, arith.ConstantOp):
            attr = op.value
            if isinstance(attr, IntegerAttr) and attr.type == IndexType():
                return str(attr.value.data)
            if isinstance(attr, IntegerAttr) and attr.type == i1:
                return "true" if attr.value.data else "false"
            raise PtoExportError(f"constant {attr} is not an index or a boolean", op)
        if type(op) in _BINARY:
            symbol = _BINARY[type(op)]  # type: ignore[index]
            if op.attributes or any(
                k != "overflowFlags" or str(v) != "#arith.overflow<none>"
                for k, v in op.properties.items()
            ):
                raise PtoExportError("flags of index arithmetic", op)
            own = _PREC[symbol]
            text = (
                f"{self.expr(op.operands[0], op, own)} {symbol} "
                f"{self.expr(op.operands[1], op, own + 1)}"
            )
            return f"({text})" if own < prec else text
        if isinstance(op, arith.CmpiOp):
            symbol = _COMPARE.get(op.predicate.value.data)
            if symbol is None:
                raise PtoExportError("unsigned comparisons (.pto compares signed)", op)
            own = _PREC["cmp"]
            text = f"{self.expr(op.lhs, op, own + 1)} {symbol} {self.expr(op.rhs, op, own + 1)}"
            return f"({text})" if own < prec else text
        if isinstance(op, memref.LoadOp):
            base = self.ref(op.memref, op) if op.memref in self.names else None
            if base is None:
                raise PtoExportError("a read of a tensor that is not an argument", op)
            return base + "".join(f"[{self.expr(i, op)}]" for i in op.indices)
        if isinstance(op, csp.CoordOp):
            return f"{self.ref(op.task, op)}[{op.position.value.data}]"
        if isinstance(op, wsp.DenseOp):
            return f"Dense[{op.size.value.data}]"
        if isinstance(op, wsp.DenseDynOp):
            return f"DenseDyn({self.expr(op.size, op)})"
        if isinstance(op, wsp.RaggedOp):
            return f"Ragged({self.expr(op.outer, op)}, {self.ref(op.lengths, op)})"
        if isinstance(op, wsp.SparseOp):
            return (
                f"Sparse({self.expr(op.outer, op)}, {self.ref(op.indptr, op)}, "
                f"{self.ref(op.indices, op)})"
            )
        raise PtoExportError(f"{op.name} has no .pto expression (used by {user.name})", op)

    def entry_scalar(self, value: int | SSAValue, user: Operation) -> str:
        if isinstance(value, int):
            return str(value)
        text = self.expr(value, user)
        # A bare integer would read back as a static entry: (4) keeps it a runtime value.
        return f"({text})" if text.removeprefix("-").isdigit() else text

    def resource(self, value: SSAValue, user: Operation) -> str:
        if value in self.names:
            return self.ref(value, user)
        op = value.owner
        if not isinstance(op, wsp.ViewOp):
            raise PtoExportError(
                f"a resource is a tensor argument or a wsp.view, got {getattr(op, 'name', value)}",
                user,
            )
        self.no_attributes(op)
        text = self.ref(op.source, op)
        for off, size in op.entries():
            if size is None:
                text += f"[{self.entry_scalar(off, op)}]"
            elif isinstance(off, int) and isinstance(size, int):
                text += f"[{off}:{off + size}]"
            else:
                text += f"[{self.entry_scalar(off, op)}:+{self.entry_scalar(size, op)}]"
        return text

    # ------------------------------------------------------------------ module

    def print_module(self, module: ModuleOp) -> None:
        for name in module.attributes:
            if name not in HEADER_ATTRS:
                raise PtoExportError(f"module attribute '{name}'", module)
        version = module.attributes.get("pto.version")
        targets = module.attributes.get("pto.targets")
        name = module.sym_name.data if module.sym_name is not None else "module"
        self.line(f"// PTO Module: {name}")
        self.line(
            "// Version: " + (version.data if isinstance(version, StringAttr) else DEFAULT_VERSION)
        )
        target_names = (
            [t.data for t in targets.data if isinstance(t, StringAttr)]
            if isinstance(targets, ArrayAttr)
            else ["cpu_sim"]
        )
        self.line("// Target: " + " | ".join(target_names))
        for op in module.ops:
            self.stream.write("\n")
            self.scopes = [{}]
            if isinstance(op, wsp.KernelOp):
                self.kernel(op)
            elif isinstance(op, wsp.WorkloadOp):
                self.workload(op)
            elif isinstance(op, csp.PipelineOp):
                self.pipeline(op)
            elif isinstance(op, sched.ScheduleOp):
                self.schedule(op)
            else:
                raise PtoExportError(f"{op.name} at module level", op)

    def no_attributes(self, op: Operation) -> None:
        if op.attributes:
            names = ", ".join(op.attributes)
            raise PtoExportError(f"the attribute(s) {names} of {op.name}", op)

    def kernel(self, op: wsp.KernelOp) -> None:
        self.ident(op.sym_name.data, op)
        text = mlir_text(op)
        prefix = "wsp.kernel @"
        assert text.startswith(prefix)
        self.line("@kernel " + text[len(prefix) :])

    def params(self, block: Block, names: ArrayAttr, op: Operation) -> str:
        parts = []
        for arg, name in zip(block.args, names.data):
            self.bind(name.data, arg, op)
            parts.append(f"%{name.data}: {type_text(arg.type)}")
        return "(" + ", ".join(parts) + ")"

    def workload(self, op: wsp.WorkloadOp) -> None:
        self.no_attributes(op)
        level = "" if op.level.data == "cpu" else f"[{op.level.data}]"
        params = self.params(op.body.block, op.arg_names, op)
        self.line(f"@workload{level} {self.ident(op.sym_name.data, op)}{params} {{")
        self.body(op.body.block)
        self.line("}")

    def pipeline(self, op: csp.PipelineOp) -> None:
        self.no_attributes(op)
        params = self.params(op.body.block, op.arg_names, op) if op.body.block.args else ""
        self.line(f"@pipeline {self.ident(op.sym_name.data, op)}{params} {{")
        self.indent += 1
        for channel in op.channels():
            self.no_attributes(channel)
            name = self.ident(channel.sym_name.data, channel)
            self.bind(name, channel, channel)
            element = type_text(channel.element_type)
            self.line(f"channel %{name} : Channel[{element}, {channel.capacity.value.data}]")
        for child in op.body.block.ops:
            if isinstance(child, csp.ProcessOp):
                self.process(child)
            elif not isinstance(child, csp.ChannelOp | wsp.YieldOp):
                raise PtoExportError(f"{child.name} in a pipeline", child)
        self.indent -= 1
        self.line("}")

    def process(self, op: csp.ProcessOp) -> None:
        self.no_attributes(op)
        text = f"process @{self.ident(op.sym_name.data, op)}"
        for clause, refs in (("consumes", op.consumes), ("produces", op.produces)):
            if refs.data:
                names = (self.ident(r.root_reference.data, op) for r in refs)
                text += f" {clause}(" + ", ".join(f"%{n}" for n in names) + ")"
        if op.replicas.value.data != 1:
            text += f" replicas({op.replicas.value.data})"
        self.line(text + " {")
        with self.scoped():
            self.body(op.body.block)
        self.line("}")

    # ------------------------------------------------------------------ statements

    def statements(self, block: Block) -> Iterator[Operation]:
        for op in block.ops:
            if isinstance(op, _HELPERS):
                self.no_attributes(op)
                continue
            if isinstance(op, wsp.YieldOp):
                continue
            yield op

    def body(self, block: Block) -> None:
        self.indent += 1
        for op in self.statements(block):
            self.stmt(op)
        self.indent -= 1

    def nested(self, head: str, block: Block, bindings: list[tuple[str, SSAValue]] = ()) -> None:
        self.line(head + " {")
        with self.scoped():
            for name, value in bindings:
                self.bind(name, value, block.parent_op() or block.first_op)  # type: ignore[arg-type]
            self.body(block)
        self.line("}")

    def stmt(self, op: Operation) -> None:
        self.no_attributes(op)
        if isinstance(op, wsp.ParallelForOp | wsp.ForEachOp):
            kind = "parallel_for" if isinstance(op, wsp.ParallelForOp) else "for_each"
            names = [n.data for n in op.names]
            axis = self.expr(op.axis, op)
            indices = ", ".join(f"%{n}" for n in names)
            self.nested(f"{kind} {indices} in {axis}", op.body.block, list(zip(names, op.indices)))
        elif isinstance(op, wsp.SelectOp):
            name = op.names.data[0].data
            head = f"select %{name} in {self.expr(op.sparse, op)}[{self.expr(op.row, op)}]"
            self.nested(head, op.body.block, [(name, op.body.block.args[0])])
        elif isinstance(op, wsp.CondOp):
            self.line(f"cond {self.expr(op.predicate, op)} {{")
            with self.scoped():
                self.body(op.then_region.block)
            self.line("} else {")
            with self.scoped():
                self.body(op.else_region.block)
            self.line("}")
        elif isinstance(op, wsp.CombineOp | wsp.SequentialOp):
            kind = "combine" if isinstance(op, wsp.CombineOp) else "sequential"
            self.nested(kind, op.body.block)
        elif isinstance(op, wsp.TaskOp):
            self.line(self.task(op))
        elif isinstance(op, wsp.CallOp):
            args = [self.expr(v, op) for v in op.args if not isinstance(v.type, MemRefType)]
            tensors = [self.resource(v, op) for v in op.args if isinstance(v.type, MemRefType)]
            callee = self.ident(op.callee.root_reference.data, op)
            schedule = ""
            if op.schedule:
                schedule = f" with @{self.ident(op.schedule.root_reference.data, op)}"
            text = f"call @{callee}{schedule}({', '.join(args)})"
            if tensors:
                text += f" resources({', '.join(tensors)})"
            self.line(text)
        elif isinstance(op, csp.SendOp):
            if op.nonblocking is not None:
                raise PtoExportError("a nonblocking send (try_send) has no .pto form", op)
            channel = self.channel_ref(op.channel.root_reference.data, op)
            children = list(self.statements(op.body.block))
            if len(children) == 1 and isinstance(children[0], wsp.TaskOp):
                self.no_attributes(children[0])
                self.line(f"send {channel}, {self.task(children[0])}")
            elif len(children) == 1 and not isinstance(children[0], wsp.CombineOp):
                self.line(f"send {channel},")
                self.indent += 1
                self.stmt(children[0])
                self.indent -= 1
            else:  # a message is a combine of its tasks: several print as one combine
                self.nested(f"send {channel}, combine", op.body.block)
        elif isinstance(op, csp.ConsumeOp):
            channel = self.channel_ref(op.channel.root_reference.data, op)
            name = self.ident(op.message.name_hint or "msg", op)
            self.nested(f"consume {channel} as %{name}", op.body.block, [(name, op.message)])
        elif isinstance(op, csp.RecordOp | csp.SynchronizeOp):
            kind = "record" if isinstance(op, csp.RecordOp) else "synchronize"
            self.line(f"{kind} {self.channel_ref(op.event.root_reference.data, op)}")
        else:
            raise PtoExportError(f"{op.name} is not a .pto statement", op)

    def channel_ref(self, name: str, op: Operation) -> str:
        self.ident(name, op)
        for scope in reversed(self.scopes):
            if name in scope:
                if not isinstance(scope[name], csp.ChannelOp):
                    raise PtoExportError(f"%{name} is shadowed here by a value", op)
                return f"%{name}"
        raise PtoExportError(f"channel @{name} is not declared in .pto scope", op)

    def task(self, op: wsp.TaskOp) -> str:
        params = ", ".join(self.expr(v, op) for v in op.params)
        resources = ", ".join(self.resource(v, op) for v in op.resources)
        kernel = self.ident(op.kernel.root_reference.data, op)
        return f"task @{kernel}({params}) resources({resources})"

    # ------------------------------------------------------------------ schedules

    def schedule(self, op: sched.ScheduleOp) -> None:
        self.no_attributes(op)
        name, workload = op.sym_name.data, op.workload.root_reference.data
        self.line(f"@schedule {self.ident(name, op)} for @{self.ident(workload, op)} {{")
        self.indent += 1
        for d in op.body.block.ops:
            self.no_attributes(d)
            self.line(self.directive(d))
        self.indent -= 1
        self.line("}")

    def key(self, op: Operation) -> str:
        assert isinstance(
            op, sched.DispatchOp | sched.StreamByOp | sched.IssueOp | sched.DispatchThresholdOp
        )
        block = op.key.block
        names = op.coordinate_names
        if any(s != "coord" for s in op.argument_sources):
            raise PtoExportError(
                ".pto keys read only task coordinates, not parameters or tensors", op
            )
        last = block.last_op
        assert isinstance(last, sched.YieldOp)
        with self.scoped():
            for name, arg in zip(names, block.args):
                self.bind(name, arg, op)
            for helper in block.ops:
                if helper is not last and not isinstance(helper, _HELPERS):
                    raise PtoExportError(f"{helper.name} in a key", helper)
            text = self.expr(last.values[0], last)
        # .pto orders a key's coordinates by first use: they must be used, in that order.
        import re

        used = list(dict.fromkeys(re.findall(r"%([A-Za-z0-9_$]+)", text)))
        if used != names:
            raise PtoExportError(
                f"a key over ({', '.join(names)}) that uses ({', '.join(used)}): .pto keys "
                "take their coordinates in order of first use",
                op,
            )
        return text

    def directive(self, d: Operation) -> str:
        if isinstance(d, sched.DispatchOp):
            policy = d.policy.data
            if d.key.blocks:
                return f"dispatch = {policy}({self.key(d)})"
            args = []
            if d.axis is not None:
                args.append(f"%{d.axis.data}")
            if d.count is not None:
                args.append(str(d.count.value.data))
            return f"dispatch = {policy}" + (f"({', '.join(args)})" if args else "")
        if isinstance(d, sched.StreamsOp):
            return f"streams = {d.count.value.data}"
        if isinstance(d, sched.BatchDepsOp):
            return f"batch_deps = {d.count.value.data}"
        if isinstance(d, sched.StreamByOp):
            return f"stream_by = {self.key(d)}"
        if isinstance(d, sched.IssueOp):
            if d.key.blocks:
                return f"issue = {d.policy.data}({self.key(d)})"
            return f"issue = {d.policy.data}"
        if isinstance(d, sched.TimingOp):
            count = f"({d.count.value.data})" if d.count is not None else ""
            return f"timing = {d.policy.data}{count}"
        if isinstance(d, sched.SpatialMapOp):
            return f"spatial_map = ({', '.join(str(g) for g in d.shape)})"
        if isinstance(d, sched.LayoutOp):
            dims = ["Replicate" if g is None else f"Shard({g})" for g in d.entries]
            return f"layout %{d.tensor.data} = ({', '.join(dims)})"
        if isinstance(d, sched.DispatchThresholdOp):
            return (
                f"dispatch_threshold = {d.threshold.value.data} below({d.below.data}) "
                f"above({d.above.data}) by({self.key(d)})"
            )
        if isinstance(d, sched.PipelineDepthOp):
            return f"pipeline_depth = {d.depth.value.data} scope({d.scope.data})"
        if isinstance(d, sched.TaskWindowOp):
            return f"task_window = {d.size.value.data} overflow({d.overflow.data})"
        raise PtoExportError(f"the schedule directive {d.name} has no .pto form", d)


class _Scope:
    def __init__(self, printer: PtoPrinter):
        self.printer = printer

    def __enter__(self) -> None:
        self.printer.scopes.append({})

    def __exit__(self, *exc: object) -> None:
        self.printer.scopes.pop()


def print_module(module: ModuleOp, stream: IO[str]) -> None:
    """Write ``module`` as ``.pto`` text (seed 000 §9.1 ``Printer::print``)."""
    PtoPrinter(stream).print_module(module)


def to_string(module: ModuleOp) -> str:
    """``module`` as ``.pto`` text (seed 000 §9.1 ``Printer::to_string``)."""
    stream = io.StringIO()
    print_module(module, stream)
    return stream.getvalue()


def to_file(module: ModuleOp, path: str | Path) -> None:
    """Write ``module`` to a ``.pto`` file (seed 000 §9.1 ``Printer::to_file``)."""
    Path(path).write_text(to_string(module), encoding="utf-8")
