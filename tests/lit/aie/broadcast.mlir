// A broadcast (Inputs/broadcast.mlir): on a grid of 4 cores, W (replicated) reaches every
// core through one memtile objectfifo with four consumers; X is distributed row by row and
// Y joined.
//
// RUN: pto-opt %S/Inputs/broadcast.mlir -t aie | FileCheck %s
// RUN: pto-opt %S/Inputs/broadcast.mlir -t aie | pto-opt --print-op-generic | pto-opt | FileCheck %s

// CHECK:      aie.objectfifo @W(%[[SHIM:.*]], {%[[MEM:.*]]}, 2 : i32) : !aie.objectfifo<memref<256xi32>>
// CHECK-NEXT: aie.objectfifo @W_all(%[[MEM]], {%[[T2:.*]], %[[T3:.*]], %[[T4:.*]], %[[T5:.*]]}, 2 : i32) : !aie.objectfifo<memref<256xi32>>
// CHECK-NEXT: aie.objectfifo.link [@W] -> [@W_all]([] [])
// CHECK-NEXT: aie.objectfifo @X(%[[SHIM]], {%[[MEM]]}, 2 : i32) : !aie.objectfifo<memref<4x256xi32>>
// CHECK-NEXT: aie.objectfifo @X_0(%[[MEM]], {%[[T2]]}, 2 : i32) : !aie.objectfifo<memref<256xi32>>
// CHECK:      aie.objectfifo.link [@X] -> [@X_0, @X_1, @X_2, @X_3]([] [0, 256, 512, 768])
// CHECK:      aie.objectfifo.link [@Y_0, @Y_1, @Y_2, @Y_3] -> [@Y]([0, 256, 512, 768] [])
// CHECK:      aie.core(%[[T4]]) {
// CHECK-NEXT:   %c0{{.*}} = arith.constant 0 : index
// CHECK-NEXT:   %cmax{{.*}} = arith.constant 9223372036854775807 : index
// CHECK-NEXT:   %c1{{.*}} = arith.constant 1 : index
// CHECK-NEXT:   scf.for %run{{.*}} = %c0{{.*}} to %cmax{{.*}} step %c1{{.*}} {
// CHECK-NEXT:   aie.objectfifo.acquire @Y_2(Produce, 1)
// CHECK:        aie.objectfifo.acquire @W_all(Consume, 1)
// CHECK:        aie.objectfifo.acquire @X_2(Consume, 1)
// CHECK:        func.call @scale(
// CHECK:      aiex.npu.dma_memcpy_nd(%{{.*}}[0, 0, 0, 0][1, 1, 1, 256][0, 0, 0, 1]) {id = 1 : i64, metadata = @W} : memref<256xi32>
