// An update in place (Inputs/update.mlir): Y's rows enter through their own fifos (@Y_in,
// distributed), each core copies its row into the element it will send back (@Y_0, @Y_1,
// joined into @Y), releases the input, and updates the copy with the kernel. The runtime
// sequence moves Y both ways.
//
// RUN: pto-opt %S/Inputs/update.mlir -t aie | FileCheck %s
// RUN: pto-opt %S/Inputs/update.mlir -t aie | pto-opt --print-op-generic | pto-opt | FileCheck %s

// CHECK:      aie.objectfifo @Y_in(%[[SHIM:.*]], {%[[MEM:.*]]}, 2 : i32) : !aie.objectfifo<memref<2x16xf32>>
// CHECK-NEXT: aie.objectfifo @Y_in_0(%[[MEM]], {%[[T2:.*]]}, 2 : i32) : !aie.objectfifo<memref<16xf32>>
// CHECK-NEXT: aie.objectfifo @Y_in_1(%[[MEM]], {%[[T3:.*]]}, 2 : i32) : !aie.objectfifo<memref<16xf32>>
// CHECK-NEXT: aie.objectfifo.link [@Y_in] -> [@Y_in_0, @Y_in_1]([] [0, 16])
// CHECK-NEXT: aie.objectfifo @Y_0(%[[T2]], {%[[MEM]]}, 2 : i32) : !aie.objectfifo<memref<16xf32>>
// CHECK-NEXT: aie.objectfifo @Y_1(%[[T3]], {%[[MEM]]}, 2 : i32) : !aie.objectfifo<memref<16xf32>>
// CHECK-NEXT: aie.objectfifo @Y(%[[MEM]], {%[[SHIM]]}, 2 : i32) : !aie.objectfifo<memref<2x16xf32>>
// CHECK-NEXT: aie.objectfifo.link [@Y_0, @Y_1] -> [@Y]([0, 16] [])

// CHECK:      aie.core(%[[T3]]) {
// CHECK:        scf.for %run{{.*}} = %c0{{.*}} to %cmax{{.*}} step %c1{{.*}} {
// CHECK-NEXT:     %[[SO:.*]] = aie.objectfifo.acquire @Y_1(Produce, 1) : !aie.objectfifosubview<memref<16xf32>>
// CHECK-NEXT:     %[[OUT:.*]] = aie.objectfifo.subview.access %[[SO]][0]
// CHECK-NEXT:     %[[SI:.*]] = aie.objectfifo.acquire @Y_in_1(Consume, 1) : !aie.objectfifosubview<memref<16xf32>>
// CHECK-NEXT:     %[[IN:.*]] = aie.objectfifo.subview.access %[[SI]][0]
// CHECK-NEXT:     "memref.copy"(%[[IN]], %[[OUT]]) : (memref<16xf32>, memref<16xf32>) -> ()
// CHECK-NEXT:     aie.objectfifo.release @Y_in_1(Consume, 1)
// CHECK-NEXT:     %[[SX:.*]] = aie.objectfifo.acquire @X_1(Consume, 1) : !aie.objectfifosubview<memref<16xf32>>
// CHECK-NEXT:     %[[X:.*]] = aie.objectfifo.subview.access %[[SX]][0]
// CHECK-NEXT:     func.call @acc(%[[X]], %[[OUT]]) : (memref<16xf32>, memref<16xf32>) -> ()
// CHECK-NEXT:     aie.objectfifo.release @X_1(Consume, 1)
// CHECK-NEXT:     aie.objectfifo.release @Y_1(Produce, 1)
// CHECK-NEXT:   }

// CHECK:      aie.runtime_sequence(%[[XX:.*]]: memref<2x16xf32>, %[[YY:.*]]: memref<2x16xf32>) {
// CHECK-NEXT:   aiex.npu.dma_memcpy_nd(%[[YY]][0, 0, 0, 0][1, 1, 1, 32][0, 0, 0, 1]) {id = 0 : i64, issue_token = true, metadata = @Y} : memref<2x16xf32>
// CHECK-NEXT:   aiex.npu.dma_memcpy_nd(%[[XX]][0, 0, 0, 0][1, 1, 1, 32][0, 0, 0, 1]) {id = 1 : i64, metadata = @X} : memref<2x16xf32>
// CHECK-NEXT:   aiex.npu.dma_memcpy_nd(%[[YY]][0, 0, 0, 0][1, 1, 1, 32][0, 0, 0, 1]) {id = 2 : i64, metadata = @Y_in} : memref<2x16xf32>
// CHECK-NEXT:   aiex.npu.dma_wait {symbol = @Y}
