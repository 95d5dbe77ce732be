// An operand out of scope where it is used is an error at the operand, as mlir-opt says
// it: defined inside its own op's region (xDSL's parser left a placeholder that crashed the
// verifier), in another region, or in a function and used outside it (xDSL's parser
// resolved these to the other region's value).
// RUN: pto-opt %s --split-input-file --parsing-diagnostics | FileCheck %s
// RUN: not pto-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=EXIT
// EXIT-NOT: internal error

func.func @f() {
  // CHECK: undeclared_operand.mlir:[[# @LINE + 1]]:10: error: use of undeclared SSA value %t
  scf.if %t {
    %t = arith.constant true
  }
  func.return
}

// -----
// CHECK: //{{ }}-----

// A use before the definition in the same block is a forward reference, resolved as ever.
// CHECK: func.func @g
func.func @g() {
  "test.op"(%x) : (index) -> ()
  %x = arith.constant 1 : index
  func.return
}

// -----
// CHECK: //{{ }}-----

// A loop index of a sibling loop.
wsp.kernel @k(i: index) unit(vector) cost(1)
wsp.workload @w(%n: index) {
  %s = wsp.dense_dyn %n
  wsp.parallel_for %a in %s named("a") : !wsp.dense_dyn {
    // CHECK: undeclared_operand.mlir:[[# @LINE + 1]]:17: error: use of undeclared SSA value %b
    wsp.task @k(%b : index) resources()
  }
  wsp.parallel_for %b in %s named("b") : !wsp.dense_dyn {
    wsp.task @k(%b : index) resources()
  }
}

// -----
// CHECK: //{{ }}-----

// A value of another process of the pipeline (the loader's loop index renamed: %i now names
// the computer's coordinate).
wsp.kernel @k(i: index) unit(vector) cost(1)
csp.pipeline @p(%n: index) {
  csp.channel @ch : !wsp.task capacity(2)
  csp.process @loader produces(@ch) {
    %tiles = wsp.dense_dyn %n
    wsp.for_each %j in %tiles named("i") : !wsp.dense_dyn {
      csp.send @ch {
        // CHECK: undeclared_operand.mlir:[[# @LINE + 1]]:21: error: use of undeclared SSA value %i
        wsp.task @k(%i : index) resources()
      }
    }
  }
  csp.process @computer consumes(@ch) {
    csp.consume @ch as %t : !wsp.task {
      %i = csp.coord %t[0]
      wsp.task @k(%i : index) resources()
    }
  }
}

// -----
// CHECK: //{{ }}-----

// The task-graph program form.
"tg.program"() <{sym_name = "p", function_type = (index) -> (), arg_names = ["n"]}> ({
^bb0(%n: index):
  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
  %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
  "scf.for"(%c0, %n, %c1) ({
  ^bb1(%i: index):
    // CHECK: undeclared_operand.mlir:[[# @LINE + 1]]:23: error: use of undeclared SSA value %j
    %x = "arith.addi"(%j, %c1) : (index, index) -> index
    "scf.yield"() : () -> ()
  }) : (index, index, index) -> ()
  "scf.for"(%c0, %n, %c1) ({
  ^bb2(%j: index):
    "scf.yield"() : () -> ()
  }) : (index, index, index) -> ()
  "tg.yield"() : () -> ()
}) : () -> ()

// -----
// CHECK: //{{ }}-----

// A function's value used at module level (a pass met such a store outside any function).
// CHECK: undeclared_operand.mlir:[[# @LINE + 1]]:11: error: use of undeclared SSA value %v
pto.store %v, %y : !pto.tile<16x256xf32, vec>, memref<16x256xf32>
func.func @f(%y: memref<16x256xf32>) {
  %v = pto.load %y : memref<16x256xf32> -> !pto.tile<16x256xf32, vec>
  func.return
}
