"""wsp-to-tg from Python: the program's size does not depend on how many tasks it creates."""

import pytest
from xdsl.context import Context
from xdsl.dialects import arith, builtin, memref, scf
from xdsl.parser import Parser
from xdsl.utils.exceptions import PassFailedException

from pto_wsp.dialects.csp import CSP
from pto_wsp.dialects.sched import SCHED
from pto_wsp.dialects.tg import TG, ProgramOp, TaskOp
from pto_wsp.dialects.wsp import WSP
from pto_wsp.passes.wsp_to_tg import WspToTgPass

WORKLOAD = """
wsp.kernel @step(i: index, x: inout memref<64xf32>) unit(vector)
wsp.workload @scan(%x: memref<{n}x64xf32>) {{
  %steps = wsp.dense {n}
  wsp.for_each %i in %steps named("i") : !wsp.dense<{n}> {{
    %v = wsp.view %x[%i] : memref<{n}x64xf32> -> memref<64xf32>
    wsp.task @step(%i : index) resources(%v : memref<64xf32>)
  }}
}}
sched.schedule @s for @scan {{
  sched.dispatch round_robin(4)
}}
"""


def context() -> Context:
    ctx = Context()
    for dialect in (builtin.Builtin, arith.Arith, memref.MemRef, scf.Scf, WSP, CSP, SCHED, TG):
        ctx.load_dialect(dialect)
    return ctx


def lower(text: str) -> builtin.ModuleOp:
    ctx = context()
    module = Parser(ctx, text).parse_module()
    WspToTgPass().apply(ctx, module)
    module.verify()
    return module


def op_names(module: builtin.ModuleOp) -> list[str]:
    return [op.name for op in module.walk()]


def test_program_size_is_independent_of_task_count():
    small = lower(WORKLOAD.format(n=10))
    large = lower(WORKLOAD.format(n=1_000_000))
    assert op_names(small) == op_names(large)
    assert sum(isinstance(op, TaskOp) for op in large.walk()) == 1


def test_workload_becomes_a_program_with_the_schedule_applied():
    module = lower(WORKLOAD.format(n=8))
    (program,) = [op for op in module.ops if isinstance(op, ProgramOp)]
    assert program.sym_name.data == "scan"
    assert program.config is not None
    assert program.config.data["dispatch"] == builtin.StringAttr("round_robin")
    (task,) = [op for op in module.walk() if isinstance(op, TaskOp)]
    assert task.target is not None
    assert not [op for op in module.ops if op.name in ("wsp.workload", "sched.schedule")]


def test_bad_calls_option_fails_the_pass():
    ctx = context()
    module = Parser(ctx, WORKLOAD.format(n=2)).parse_module()
    with pytest.raises(PassFailedException, match="calls must be inline or nested"):
        WspToTgPass(calls="sideways").apply(ctx, module)
