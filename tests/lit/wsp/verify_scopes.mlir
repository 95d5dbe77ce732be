// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Every value an op uses is defined before it in its block or in an enclosing block
// (dialects/traits.py IsolatedScopes, on wsp.workload, wsp.kernel, csp.pipeline, tg.program,
// tg.process and the sched ops). xDSL's parser resolves a name to a value of a sibling
// region defined later, and xDSL does not verify dominance: without this rule these modules
// verified and the simulator failed with a Python NameError.
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

// A loop index of a sibling loop.
wsp.kernel @k(i: index) unit(vector) cost(1)
wsp.workload @w(%n: index) {
  %s = wsp.dense_dyn %n
  wsp.parallel_for %a in %s named("a") : !wsp.dense_dyn {
    wsp.task @k(%b : index) resources()
  }
  wsp.parallel_for %b in %s named("b") : !wsp.dense_dyn {
    wsp.task @k(%b : index) resources()
  }
}

// CHECK: verify_scopes.mlir:[[# @LINE - 7]]:5: error: 'wsp.task' op %b is not defined before this op in its block or an enclosing one (a value of another region, or used before its definition)

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

// CHECK: error: 'wsp.task' op %i is not defined before this op

// -----
// CHECK: //{{ }}-----

// The task-graph program form.
"tg.program"() <{sym_name = "p", function_type = (index) -> (), arg_names = ["n"]}> ({
^bb0(%n: index):
  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
  %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
  "scf.for"(%c0, %n, %c1) ({
  ^bb1(%i: index):
    %x = "arith.addi"(%j, %c1) : (index, index) -> index
    "scf.yield"() : () -> ()
  }) : (index, index, index) -> ()
  "scf.for"(%c0, %n, %c1) ({
  ^bb2(%j: index):
    "scf.yield"() : () -> ()
  }) : (index, index, index) -> ()
  "tg.yield"() : () -> ()
}) : () -> ()

// CHECK: error: 'arith.addi' op %j is not defined before this op
