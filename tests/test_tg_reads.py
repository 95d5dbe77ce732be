"""passes/tg_reads.py: which reads follow every write of their tensor (the runtimes' TensorMaps
record no reader for them). The lowering of the marks is tested in
tests/lit/passes/tg-to-runtime-calls/reads.mlir and test_ascend_emit.py, the graphs they give
by the conformance table's regions_after_* cases."""

from __future__ import annotations

from pto_wsp.dialects import tg
from pto_wsp.passes.tg_reads import LOOKUP, UNWRITTEN, reads_after_writes
from pto_wsp.tools.diagnostics import parse_located

KERNELS = """
wsp.kernel @w(t: out memref<4xf32>) unit(vector)
wsp.kernel @r(a: in memref<4xf32>) unit(vector)
wsp.kernel @rw(a: in memref<4xf32>, b: out memref<4xf32>) unit(vector)
"""


def marks(body: str) -> list[list[str]]:
    """Per task of program @p (in order), its regions' marks."""
    module = parse_located(KERNELS + body, "reads.mlir")
    program = next(op for op in module.ops if isinstance(op, tg.ProgramOp))
    found = reads_after_writes(program.body.block)
    tasks = [op for op in program.walk() if isinstance(op, tg.TaskOp)]
    return [found.get(op, [""] * len(op.access)) for op in tasks]


def test_a_read_after_every_write_is_a_lookup_and_an_unwritten_tensor_is_left_out():
    assert marks(
        """
tg.program @p(%A: memref<4xf32>, %W: memref<4xf32>, %B: memref<4xf32>) {
  tg.task @w() resources(%A : memref<4xf32>) access(out) pool(vector)
  tg.task @r() resources(%A : memref<4xf32>) access(in) pool(vector)
  tg.task @r() resources(%W : memref<4xf32>) access(in) pool(vector)
  tg.task @rw() resources(%A, %B : memref<4xf32>, memref<4xf32>) access(in, out) pool(vector)
}
"""
    ) == [[""], [LOOKUP], [UNWRITTEN], [LOOKUP, ""]]


def test_reads_sharing_a_top_level_op_with_a_write_stay_recorded():
    """In one loop, a read may come before a later iteration's write."""
    assert marks(
        """
tg.program @p(%A: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    tg.task @r() resources(%A : memref<4xf32>) access(in) pool(vector)
    tg.task @w() resources(%A : memref<4xf32>) access(out) pool(vector)
  }
  tg.task @r() resources(%A : memref<4xf32>) access(in) pool(vector)
}
"""
    ) == [[""], [""], [LOOKUP]]


def test_a_write_to_a_view_it_cannot_follow_marks_nothing():
    """A region of a memref.global may be any tensor's data as far as it knows."""
    assert marks(
        """
"memref.global"() <{sym_name = "g", type = memref<4xf32>, initial_value = dense<0.0> : tensor<4xf32>, sym_visibility = "private"}> : () -> ()
tg.program @p(%A: memref<4xf32>) {
  %g = memref.get_global @g : memref<4xf32>
  tg.task @w() resources(%g : memref<4xf32>) access(out) pool(vector)
  tg.task @r() resources(%A : memref<4xf32>) access(in) pool(vector)
}
"""
    ) == [[""], [""]]
