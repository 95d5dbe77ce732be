// A 2x2 spatial matmul (Inputs/matmul_2x2.mlir): A Shard(0), B Shard(1), C sharded on both.
// On npu1_1col the grid folds into the column's four core rows; A and B are distributed
// through the memtile (objectfifo.link with destination offsets; each block broadcast to the
// two cores of its grid row / column), C joined (source offsets). B's shim transfer lays its
// column blocks out one after the other; C's reads the four 32x32 blocks back in place.
// On npu1 (four columns) the grid keeps its shape: axis 0 up the rows, axis 1 across.
//
// RUN: pto-opt %S/Inputs/matmul_2x2.mlir -t 'aie{device=npu1_1col}' | FileCheck %s
// RUN: pto-opt %S/Inputs/matmul_2x2.mlir -t 'aie{device=npu1_1col}' | pto-opt | FileCheck %s
// RUN: pto-opt %S/Inputs/matmul_2x2.mlir -p 'wsp-to-tg,tg-to-aie' --print-op-generic | pto-opt | FileCheck %s
// RUN: pto-opt %S/Inputs/matmul_2x2.mlir -t 'aie{device=npu1}' | FileCheck %s --check-prefix=NPU1

// CHECK:      aie.device(npu1_1col) {
// CHECK-NEXT:   %[[SHIM:.*]] = aie.tile(0, 0)
// CHECK-NEXT:   %[[MEM:.*]] = aie.tile(0, 1)
// CHECK-NEXT:   %[[C00:.*]] = aie.tile(0, 2)
// CHECK-NEXT:   %[[C01:.*]] = aie.tile(0, 3)
// CHECK-NEXT:   %[[C10:.*]] = aie.tile(0, 4)
// CHECK-NEXT:   %[[C11:.*]] = aie.tile(0, 5)
// CHECK-NEXT:   aie.objectfifo @A(%[[SHIM]], {%[[MEM]]}, 2 : i32) : !aie.objectfifo<memref<64x64xf32>>
// CHECK-NEXT:   aie.objectfifo @A_0(%[[MEM]], {%[[C00]], %[[C01]]}, 2 : i32) : !aie.objectfifo<memref<32x64xf32>>
// CHECK-NEXT:   aie.objectfifo @A_1(%[[MEM]], {%[[C10]], %[[C11]]}, 2 : i32) : !aie.objectfifo<memref<32x64xf32>>
// CHECK-NEXT:   aie.objectfifo.link [@A] -> [@A_0, @A_1]([] [0, 2048])
// CHECK-NEXT:   aie.objectfifo @B(%[[SHIM]], {%[[MEM]]}, 2 : i32) : !aie.objectfifo<memref<64x64xf32>>
// CHECK-NEXT:   aie.objectfifo @B_0(%[[MEM]], {%[[C00]], %[[C10]]}, 2 : i32) : !aie.objectfifo<memref<64x32xf32>>
// CHECK-NEXT:   aie.objectfifo @B_1(%[[MEM]], {%[[C01]], %[[C11]]}, 2 : i32) : !aie.objectfifo<memref<64x32xf32>>
// CHECK-NEXT:   aie.objectfifo.link [@B] -> [@B_0, @B_1]([] [0, 2048])
// CHECK-NEXT:   aie.objectfifo @C_0_0(%[[C00]], {%[[MEM]]}, 2 : i32) : !aie.objectfifo<memref<32x32xf32>>
// CHECK-NEXT:   aie.objectfifo @C_0_1(%[[C01]], {%[[MEM]]}, 2 : i32) : !aie.objectfifo<memref<32x32xf32>>
// CHECK-NEXT:   aie.objectfifo @C_1_0(%[[C10]], {%[[MEM]]}, 2 : i32) : !aie.objectfifo<memref<32x32xf32>>
// CHECK-NEXT:   aie.objectfifo @C_1_1(%[[C11]], {%[[MEM]]}, 2 : i32) : !aie.objectfifo<memref<32x32xf32>>
// CHECK-NEXT:   aie.objectfifo @C(%[[MEM]], {%[[SHIM]]}, 2 : i32) : !aie.objectfifo<memref<64x64xf32>>
// CHECK-NEXT:   aie.objectfifo.link [@C_0_0, @C_0_1, @C_1_0, @C_1_1] -> [@C]([0, 1024, 2048, 3072] [])
// CHECK-NEXT:   func.func private @matmul(memref<32x64xf32>, memref<64x32xf32>, memref<32x32xf32>){{( -> \(\))?}} attributes {link_with = "matmul.o"}

// Core (0, 1) of the grid: C's block (0, 1) acquired first (as IRON's workers do), then
// A's block 0 and B's block 1.
// CHECK:        aie.core(%[[C01]]) {
// CHECK-NEXT:     %c0{{.*}} = arith.constant 0 : index
// CHECK-NEXT:     %cmax{{.*}} = arith.constant 9223372036854775807 : index
// CHECK-NEXT:     %c1{{.*}} = arith.constant 1 : index
// CHECK-NEXT:     scf.for %run{{.*}} = %c0{{.*}} to %cmax{{.*}} step %c1{{.*}} {
// CHECK-NEXT:     %[[S2:.*]] = aie.objectfifo.acquire @C_0_1(Produce, 1) : !aie.objectfifosubview<memref<32x32xf32>>
// CHECK-NEXT:     %[[C:.*]] = aie.objectfifo.subview.access %[[S2]][0]
// CHECK-NEXT:     %[[S0:.*]] = aie.objectfifo.acquire @A_0(Consume, 1) : !aie.objectfifosubview<memref<32x64xf32>>
// CHECK-NEXT:     %[[A:.*]] = aie.objectfifo.subview.access %[[S0]][0]
// CHECK-NEXT:     %[[S1:.*]] = aie.objectfifo.acquire @B_1(Consume, 1) : !aie.objectfifosubview<memref<64x32xf32>>
// CHECK-NEXT:     %[[B:.*]] = aie.objectfifo.subview.access %[[S1]][0]
// CHECK-NEXT:     func.call @matmul(%[[A]], %[[B]], %[[C]]) : (memref<32x64xf32>, memref<64x32xf32>, memref<32x32xf32>) -> ()
// CHECK-NEXT:     aie.objectfifo.release @A_0(Consume, 1)
// CHECK-NEXT:     aie.objectfifo.release @B_1(Consume, 1)
// CHECK-NEXT:     aie.objectfifo.release @C_0_1(Produce, 1)
// CHECK-NEXT:     }
// CHECK-NEXT:     aie.end
// CHECK-NEXT:   }

// CHECK:        aie.runtime_sequence(%[[AA:.*]]: memref<64x64xf32>, %[[BB:.*]]: memref<64x64xf32>, %[[CC:.*]]: memref<64x64xf32>) {
// CHECK-NEXT:     aiex.npu.dma_memcpy_nd(%[[CC]][0, 0, 0, 0][2, 2, 32, 32][2048, 32, 64, 1]) {id = 0 : i64, issue_token = true, metadata = @C} : memref<64x64xf32>
// CHECK-NEXT:     aiex.npu.dma_memcpy_nd(%[[AA]][0, 0, 0, 0][1, 1, 1, 4096][0, 0, 0, 1]) {id = 1 : i64, metadata = @A} : memref<64x64xf32>
// CHECK-NEXT:     aiex.npu.dma_memcpy_nd(%[[BB]][0, 0, 0, 0][1, 2, 64, 32][0, 32, 64, 1]) {id = 2 : i64, metadata = @B} : memref<64x64xf32>
// CHECK-NEXT:     aiex.npu.dma_wait {symbol = @C}
// CHECK-NEXT:   }

// NPU1:      aie.device(npu1) {
// NPU1:        aie.objectfifo @A_0(%{{.*}}, {%tile_c0r2, %tile_c1r2}, 2 : i32)
// NPU1:        aie.objectfifo @A_1(%{{.*}}, {%tile_c0r3, %tile_c1r3}, 2 : i32)
// NPU1:        aie.objectfifo @B_0(%{{.*}}, {%tile_c0r2, %tile_c0r3}, 2 : i32)
// NPU1:        aie.objectfifo @B_1(%{{.*}}, {%tile_c1r2, %tile_c1r3}, 2 : i32)
