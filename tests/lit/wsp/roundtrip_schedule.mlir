// RUN: pto-opt %s | FileCheck %s --match-full-lines
// RUN: pto-opt %s | pto-opt | FileCheck %s --match-full-lines
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s --match-full-lines
// RUN: pto-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// wsp.call with schedule(@s): the call runs its callee under the schedule @s (a
// sched.schedule for that callee) instead of the callee's own. Kept apart from
// roundtrip_exprs.mlir because it needs the sched dialect.

builtin.module {
  wsp.kernel @tile(i: index, X: inout memref<16xf32>)
  wsp.workload @incore(%i: index, %X: memref<16xf32>) level(npu) {
    wsp.task @tile(%i : index) resources(%X : memref<16xf32>)
  }
  sched.schedule @fast for @incore {
  }
  sched.schedule @slow for @incore {
    sched.streams 2
  }
  wsp.workload @outer(%n: index, %X: memref<?x16xf32>) {
    %d = wsp.dense_dyn %n
    wsp.parallel_for %i in %d named("i") : !wsp.dense_dyn {
      %x = wsp.view %X[%i] : memref<?x16xf32> -> memref<16xf32>
      wsp.call @incore(%i, %x : index, memref<16xf32>) schedule(@fast)
      wsp.call @incore(%i, %x : index, memref<16xf32>) schedule(@slow) attributes {note = "override"}
      wsp.call @incore(%i, %x : index, memref<16xf32>)
    }
  }
}

// CHECK:      builtin.module {
// CHECK-NEXT:   wsp.kernel @tile(i: index, X: inout memref<16xf32>) unit(vector)
// CHECK-NEXT:   wsp.workload @incore(%i: index, %X: memref<16xf32>) level(npu) {
// CHECK-NEXT:     wsp.task @tile(%i : index) resources(%X : memref<16xf32>)
// CHECK-NEXT:   }
// CHECK-NEXT:   sched.schedule @fast for @incore {
// CHECK-NEXT:   }
// CHECK-NEXT:   sched.schedule @slow for @incore {
// CHECK-NEXT:     sched.streams 2
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.workload @outer(%n: index, %X: memref<?x16xf32>) {
// CHECK-NEXT:     %d = wsp.dense_dyn %n
// CHECK-NEXT:     wsp.parallel_for %i in %d named("i") : !wsp.dense_dyn {
// CHECK-NEXT:       %x = wsp.view %X[%i] : memref<?x16xf32> -> memref<16xf32>
// CHECK-NEXT:       wsp.call @incore(%i, %x : index, memref<16xf32>) schedule(@fast)
// CHECK-NEXT:       wsp.call @incore(%i, %x : index, memref<16xf32>) schedule(@slow) attributes {note = "override"}
// CHECK-NEXT:       wsp.call @incore(%i, %x : index, memref<16xf32>)
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }

// GENERIC: "wsp.call"(%i, %x) <{callee = @incore, schedule = @fast}> : (index, memref<16xf32>) -> ()
// GENERIC-NEXT: "wsp.call"(%i, %x) <{callee = @incore, schedule = @slow}> {note = "override"} : (index, memref<16xf32>) -> ()
// GENERIC-NEXT: "wsp.call"(%i, %x) <{callee = @incore}> : (index, memref<16xf32>) -> ()
