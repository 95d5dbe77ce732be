// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Every value an op uses is defined before it in its block or in an enclosing block
// (dialects/traits.py IsolatedScopes, on wsp.workload, wsp.kernel, csp.pipeline, tg.program,
// tg.process and the sched ops). xDSL's parser resolves a name used before its definition in
// the same block, and xDSL does not verify dominance: without this rule such modules verified
// and the simulator failed with a Python NameError. (A value of another region is already an
// error of the parser: tests/lit/tools/undeclared_operand.mlir.)
// Each chunk's checks start at the separator line pto-opt prints between chunks.

// Values of enclosing blocks, defined before the use: fine.
wsp.kernel @k(i: index, j: index) unit(vector) cost(1)
wsp.workload @w(%n: index) {
  %s = wsp.dense_dyn %n
  %c1 = arith.constant 1 : index
  wsp.parallel_for %a in %s named("a") : !wsp.dense_dyn {
    %b = arith.addi %a, %c1 : index
    wsp.parallel_for %c in %s named("c") : !wsp.dense_dyn {
      wsp.task @k(%b, %c : index, index) resources()
    }
  }
}

// CHECK: wsp.task @k(%b, %c : index, index) resources()
// CHECK-NOT: error

// -----
// CHECK: //{{ }}-----

// Used before its definition in the same block.
wsp.kernel @k(i: index) unit(vector) cost(1)
wsp.workload @w(%n: index) {
  %c = arith.addi %d, %n : index
  %d = arith.constant 2 : index
  wsp.task @k(%c : index) resources()
}

// CHECK: error: 'arith.addi' op %d is not defined before this op

