// RUN: pto-opt %s -p wsp-to-tg 2>&1 | FileCheck %s
// RUN: not pto-run %s --bind n=2 2>&1 | FileCheck %s --check-prefix=SIM

// An op of another dialect in a workload body (an extension): wsp-to-tg keeps it in the
// program and says so at its line, naming it; a target that cannot run it then fails there
// too (pto-run: the warning first, then the located error).

wsp.kernel @k(i: index) unit(vector)
wsp.workload @w(%n: index) {
  %is = wsp.dense_dyn %n
  wsp.parallel_for %i in %is named("i") : !wsp.dense_dyn {
    "test.op"(%i) : (index) -> ()
    wsp.task @k(%i : index) resources()
  }
}

// CHECK: foreign_op.mlir:12:5: warning: wsp-to-tg does not know the op 'test.op' in a workload body; it is kept in the program for the targets to run or reject
// CHECK: scf.for %i =
// CHECK-NEXT: "test.op"(%i) : (index) -> ()
// CHECK-NEXT: tg.task @k

// SIM: foreign_op.mlir:12:5: warning: wsp-to-tg does not know the op 'test.op'
// SIM: foreign_op.mlir:12:5: tg-to-runtime-calls: cannot lower test.op
