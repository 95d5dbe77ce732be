"""The Python API of pto-wsp (seed 001): build workloads, pipelines and schedules as IR.

Modules by topic: ``expressions``, ``tensors`` and ``axes`` (values, tensors, views,
iteration spaces), ``kernels`` (``@kernel``), ``workloads`` (the workload primitives),
``definitions`` (``@workload`` and ``call``), ``decorator`` (the ``P`` namespace), ``csp``
(channels and processes), ``schedules``, ``lowering`` (descriptions to IR) and ``program``
(modules and ``compile``). Everything public is re-exported by ``pto_wsp``.
"""

from pto_wsp.errors import CompileError
from pto_wsp.lowering.targets import TargetInfo, target_info, targets

from .axes import Axis, Dense, DenseDyn, Ragged, Sparse, cross
from .csp import (
    Channel,
    Event,
    Pipeline,
    Process,
    connect,
    consume,
    process,
    record,
    replicate,
    send,
    synchronize,
    try_send,
)
from .decorator import P
from .definitions import call, workload
from .expressions import Expr, sym
from .kernels import In, InOut, Kernel, Out, kernel
from .program import TARGETS, compile, compile_async, module, register_backend
from .schedules import DispatchPolicy, IssuePolicy, Replicate, Schedule, Shard, TimingPolicy
from .streams import Stream, barrier, query, stream_wait
from .tensors import (
    DType,
    Tensor,
    View,
    bf16,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
    index,
    u8,
    u16,
    u32,
    u64,
)
from .workloads import (
    Workload,
    combine,
    cond,
    for_each,
    parallel_for,
    select,
    sequential,
    task,
)

__all__ = [
    "TARGETS",
    "Axis",
    "Channel",
    "CompileError",
    "DType",
    "Dense",
    "DenseDyn",
    "DispatchPolicy",
    "Event",
    "Expr",
    "In",
    "InOut",
    "IssuePolicy",
    "Kernel",
    "Out",
    "P",
    "Pipeline",
    "Process",
    "Ragged",
    "Replicate",
    "Schedule",
    "Shard",
    "Sparse",
    "Stream",
    "TargetInfo",
    "Tensor",
    "TimingPolicy",
    "View",
    "Workload",
    "barrier",
    "bf16",
    "call",
    "combine",
    "compile",
    "compile_async",
    "cond",
    "connect",
    "consume",
    "cross",
    "f16",
    "f32",
    "f64",
    "for_each",
    "i1",
    "i8",
    "i16",
    "i32",
    "i64",
    "index",
    "kernel",
    "module",
    "parallel_for",
    "process",
    "query",
    "record",
    "register_backend",
    "replicate",
    "select",
    "send",
    "sequential",
    "stream_wait",
    "sym",
    "synchronize",
    "target_info",
    "targets",
    "task",
    "try_send",
    "u8",
    "u16",
    "u32",
    "u64",
    "workload",
]
