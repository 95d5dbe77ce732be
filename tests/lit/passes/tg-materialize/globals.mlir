// RUN: not pto-opt %s -p 'wsp-to-tg,tg-materialize' --split-input-file 2>&1 | FileCheck %s

// A Ragged axis and a select over constant arrays (memref.global, as the Python API writes
// Ragged/Sparse data given as numpy arrays): tg-materialize reads them, nothing to bind.

"memref.global"() <{sym_name = "lengths", type = memref<3xi32>, initial_value = dense<[2, 0, 1]> : tensor<3xi32>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "indptr", type = memref<3xi64>, initial_value = dense<[0, 1, 3]> : tensor<3xi64>, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "indices", type = memref<3xi64>, initial_value = dense<[4, 5, 6]> : tensor<3xi64>, sym_visibility = "private", constant}> : () -> ()
wsp.kernel @k(r: index, j: index) unit(vector)
wsp.workload @w() {
  %c3 = arith.constant 3 : index
  %c2 = arith.constant 2 : index
  %lengths = memref.get_global @lengths : memref<3xi32>
  %indptr = memref.get_global @indptr : memref<3xi64>
  %indices = memref.get_global @indices : memref<3xi64>
  %tokens = wsp.ragged %c3, %lengths : memref<3xi32>
  %routing = wsp.sparse %c2, %indptr, %indices : memref<3xi64>, memref<3xi64>
  %bs = wsp.dense 2
  wsp.combine {
    wsp.parallel_for %r, %j in %tokens named("r", "j") : !wsp.ragged {
      wsp.task @k(%r, %j : index, index) resources()
    }
    wsp.parallel_for %b in %bs named("b") : !wsp.dense<2> {
      wsp.select %e in %routing[%b] named("e") : !wsp.sparse {
        wsp.task @k(%b, %e : index, index) resources()
      }
    }
  }
}

// CHECK:      tg.graph @w() {
// CHECK-NEXT:   tg.node 0 task @k args(0, 0) at(r = 0, j = 0)
// CHECK-NEXT:   tg.node 1 task @k args(0, 1) at(r = 0, j = 1)
// CHECK-NEXT:   tg.node 2 task @k args(2, 0) at(r = 2, j = 0)
// CHECK-NEXT:   tg.node 3 task @k args(0, 4) at(b = 0, e = 4)
// CHECK-NEXT:   tg.node 4 task @k args(1, 5) at(b = 1, e = 5)
// CHECK-NEXT:   tg.node 5 task @k args(1, 6) at(b = 1, e = 6)
// CHECK-NEXT: }

// -----

// Only a constant global of integers is data the program can read (a located error).
"memref.global"() <{sym_name = "rows", type = memref<3xindex>, initial_value = dense<[2, 0, 1]> : tensor<3xindex>, sym_visibility = "private"}> : () -> ()
wsp.kernel @k(i: index) unit(vector)
wsp.workload @w() {
  %c0 = arith.constant 0 : index
  // CHECK: globals.mlir:[[# @LINE + 1]]:11: the CPU code generator cannot run memref.get_global @rows: not a constant integer memref.global
  %rows = memref.get_global @rows : memref<3xindex>
  %r = memref.load %rows[%c0] : memref<3xindex>
  wsp.task @k(%r : index) resources()
}

// -----

// A constant array is loaded, never a task's region.
"memref.global"() <{sym_name = "rows", type = memref<3xindex>, initial_value = dense<[2, 0, 1]> : tensor<3xindex>, sym_visibility = "private", constant}> : () -> ()
wsp.kernel @k(x: in memref<3xindex>) unit(vector)
wsp.workload @w() {
  // CHECK: globals.mlir:[[# @LINE + 1]]:11: the CPU code generator cannot run memref.get_global @rows as a task's region (a constant array is only loaded; give the task a tensor argument)
  %rows = memref.get_global @rows : memref<3xindex>
  wsp.task @k() resources(%rows : memref<3xindex>)
}
