// RUN: not pto-opt %s --split-input-file -p tg-to-runtime-calls 2>&1 | FileCheck %s

// Constructs the runtime core does not take yet give a located error naming the op.

tg.program @a() {
  tg.call @b()
}
tg.program @b() {
  tg.call @a()
}

// CHECK: errors.mlir:[[# @LINE - 3]]:3: error: 'tg.call' op tg-to-runtime-calls: recursive tg.call cannot be inlined: @a -> @b -> @a

// -----

wsp.kernel @k(t: in memref<4xf32>) unit(vector)
tg.program @cast(%T: memref<4xf32>) {
  %c = "memref.cast"(%T) : (memref<4xf32>) -> memref<?xf32>
  tg.task @k() resources(%c : memref<?xf32>) access(in) pool(vector)
}

// CHECK: errors.mlir:[[# @LINE - 3]]:3: error: 'tg.task' op tg-to-runtime-calls: a task region must be a program argument or a memref.subview of one, not a value of memref.cast

// -----

wsp.kernel @k(t: in memref<4xf32>) unit(vector)
tg.program @pipe(%T: memref<4xf32>) {
  tg.queue @q : !wsp.task capacity(1)
  tg.process @producer {
  ^bb0(%r: index):
    tg.send @q {
      %c = "memref.cast"(%T) : (memref<4xf32>) -> memref<?xf32>
      tg.task @k() resources(%c : memref<?xf32>) access(in) pool(vector)
    }
  }
  tg.process @consumer {
  ^bb0(%r: index):
    tg.consume @q as %m : !wsp.task {
    }
  }
}

// A process's body is lowered as a program's: its errors are located the same way.
// CHECK: errors.mlir:[[# @LINE - 11]]:7: error: 'tg.task' op tg-to-runtime-calls: a task region must be a program argument or a memref.subview of one, not a value of memref.cast

// -----

wsp.kernel @k(t: in memref<1x1x1x1x1x1x1x1x1xf32>) unit(vector)
tg.program @deep(%T: memref<1x1x1x1x1x1x1x1x1xf32>) {
  tg.task @k() resources(%T : memref<1x1x1x1x1x1x1x1x1xf32>) access(in) pool(vector)
}

// CHECK: errors.mlir:[[# @LINE - 3]]:3: error: 'tg.task' op tg-to-runtime-calls: a region of rank 9: the runtime core takes ranks up to 8

// -----

wsp.workload @w() {
}

// CHECK: errors.mlir:[[# @LINE - 3]]:1: error: 'wsp.workload' op tg-to-runtime-calls: cannot lower wsp.workload (run wsp-to-tg and csp-to-tg first)

// CHECK-NOT: Traceback

// -----

// The names of the programs' site tables are the pass's own.
"memref.global"() <{sym_name = "__pto_sites_p", sym_visibility = "private", type = memref<1xi64>, initial_value = dense<0> : tensor<1xi64>, constant}> : () -> ()
tg.program @p() {
}

// CHECK: errors.mlir:[[# @LINE - 4]]:1: error: 'memref.global' op tg-to-runtime-calls: @__pto_sites_p: a name the pass keeps for programs' site tables
