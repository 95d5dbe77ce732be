// Capacity 0 and events (Inputs/events.mlir): a rendezvous queue becomes an objectfifo of
// depth 1; an event an objectfifo of memref<1xi32>, depth 1, acquired and released by
// tg.record (Produce) and tg.synchronize (Consume).
//
// RUN: pto-opt %S/Inputs/events.mlir -t aie | FileCheck %s
// RUN: pto-opt %S/Inputs/events.mlir -t aie --print-op-generic | pto-opt | FileCheck %s

// CHECK:      aie.objectfifo @q(%[[A:.*]], {%[[B:.*]]}, 1 : i32) : !aie.objectfifo<memref<16xi32>>
// CHECK-NEXT: aie.objectfifo @done(%[[A]], {%[[B]]}, 1 : i32) : !aie.objectfifo<memref<1xi32>>
// CHECK:      aie.core(%[[A]]) {
// CHECK-NEXT:   %c0{{.*}} = arith.constant 0 : index
// CHECK-NEXT:   %cmax{{.*}} = arith.constant 9223372036854775807 : index
// CHECK-NEXT:   %c1{{.*}} = arith.constant 1 : index
// CHECK-NEXT:   scf.for %run{{.*}} = %c0{{.*}} to %cmax{{.*}} step %c1{{.*}} {
// CHECK:        scf.for
// CHECK:        }
// CHECK-NEXT:   %{{.*}} = aie.objectfifo.acquire @done(Produce, 1) : !aie.objectfifosubview<memref<1xi32>>
// CHECK-NEXT:   aie.objectfifo.release @done(Produce, 1)
// CHECK-NEXT:   }
// CHECK-NEXT:   aie.end
// CHECK:      aie.core(%[[B]]) {
// CHECK-NEXT:   %c0{{.*}} = arith.constant 0 : index
// CHECK-NEXT:   %cmax{{.*}} = arith.constant 9223372036854775807 : index
// CHECK-NEXT:   %c1{{.*}} = arith.constant 1 : index
// CHECK-NEXT:   scf.for %run{{.*}} = %c0{{.*}} to %cmax{{.*}} step %c1{{.*}} {
// CHECK:        scf.for
// CHECK:        }
// CHECK-NEXT:   %{{.*}} = aie.objectfifo.acquire @done(Consume, 1) : !aie.objectfifosubview<memref<1xi32>>
// CHECK-NEXT:   aie.objectfifo.release @done(Consume, 1)
// CHECK-NEXT:   }
// CHECK-NEXT:   aie.end
