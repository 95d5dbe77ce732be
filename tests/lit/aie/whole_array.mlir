// IRON's whole-array matmul (Inputs/matmul_k.mlir): C = A @ B on a 2x4 grid, each core
// zeroing its C block and accumulating K = 4 products into it. The grid needs more memtile
// channels than one memtile has (eight C blocks), so every column stages its own share:
// A's two row blocks go to the memtiles of columns 0 and 1 (each broadcast across a row of
// cores), B's column blocks up their own columns, C's blocks are joined per column. Each
// shim moves its column's share, K tiles one after the other.
//
// RUN: pto-opt %S/Inputs/matmul_k.mlir -t 'aie{device=npu1}' | FileCheck %s
// RUN: pto-opt %S/Inputs/matmul_k.mlir -t 'aie{device=npu1}' | pto-opt --print-op-generic | pto-opt | FileCheck %s
// RUN: pto-opt %S/Inputs/matmul_k.mlir -t 'aie{device=npu2}' | FileCheck %s --check-prefix=NPU2

// CHECK:      aie.device(npu1) {
// CHECK:        aie.objectfifo @A_col0(%[[SHIM0:.*]], {%[[MEM0:.*]]}, 2 : i32) : !aie.objectfifo<memref<512xf32>>
// CHECK-NEXT:   aie.objectfifo @A_0(%[[MEM0]], {%[[T02:.*]], %[[T12:.*]], %[[T22:.*]], %[[T32:.*]]}, 2 : i32) : !aie.objectfifo<memref<32x16xf32>>
// CHECK-NEXT:   aie.objectfifo.link [@A_col0] -> [@A_0]([] [])
// CHECK-NEXT:   aie.objectfifo @A_col1(%[[SHIM1:.*]], {%[[MEM1:.*]]}, 2 : i32) : !aie.objectfifo<memref<512xf32>>
// CHECK-NEXT:   aie.objectfifo @A_1(%[[MEM1]], {%[[T03:.*]], %[[T13:.*]], %[[T23:.*]], %[[T33:.*]]}, 2 : i32) : !aie.objectfifo<memref<32x16xf32>>
// CHECK-NEXT:   aie.objectfifo.link [@A_col1] -> [@A_1]([] [])
// CHECK-NEXT:   aie.objectfifo @B_col0(%[[SHIM0]], {%[[MEM0]]}, 2 : i32) : !aie.objectfifo<memref<256xf32>>
// CHECK-NEXT:   aie.objectfifo @B_0(%[[MEM0]], {%[[T02]], %[[T03]]}, 2 : i32) : !aie.objectfifo<memref<16x16xf32>>
// CHECK-NEXT:   aie.objectfifo.link [@B_col0] -> [@B_0]([] [])
// CHECK:        aie.objectfifo @B_3(%{{.*}}, {%[[T32]], %[[T33]]}, 2 : i32) : !aie.objectfifo<memref<16x16xf32>>
// CHECK:        aie.objectfifo @C_0_0(%[[T02]], {%[[MEM0]]}, 2 : i32) : !aie.objectfifo<memref<32x16xf32>>
// CHECK-NEXT:   aie.objectfifo @C_1_0(%[[T03]], {%[[MEM0]]}, 2 : i32) : !aie.objectfifo<memref<32x16xf32>>
// CHECK-NEXT:   aie.objectfifo @C_col0(%[[MEM0]], {%[[SHIM0]]}, 2 : i32) : !aie.objectfifo<memref<1024xf32>>
// CHECK-NEXT:   aie.objectfifo.link [@C_0_0, @C_1_0] -> [@C_col0]([0, 512] [])
// CHECK:        aie.objectfifo.link [@C_0_3, @C_1_3] -> [@C_col3]([0, 512] [])
// CHECK-NEXT:   func.func private @zero(memref<32x16xf32>){{( -> \(\))?}} attributes {link_with = "zero.o"}
// CHECK-NEXT:   func.func private @matmul(memref<32x16xf32>, memref<16x16xf32>, memref<32x16xf32>){{( -> \(\))?}} attributes {link_with = "matmul.o"}

// Core (1, 2) of the grid (column 2, row 3): C's block acquired around the K loop.
// CHECK:        aie.core(%[[T23]]) {
// CHECK:          scf.for %run{{.*}} = %c0{{.*}} to %cmax{{.*}} step %c1{{.*}} {
// CHECK:            %[[C4:.*]] = arith.constant 4 : index
// CHECK:            %[[SC:.*]] = aie.objectfifo.acquire @C_1_2(Produce, 1) : !aie.objectfifosubview<memref<32x16xf32>>
// CHECK-NEXT:       %[[C:.*]] = aie.objectfifo.subview.access %[[SC]][0]
// CHECK-NEXT:       func.call @zero(%[[C]]) : (memref<32x16xf32>) -> ()
// CHECK-NEXT:       scf.for %step{{.*}} = %{{.*}} to %[[C4]] step %{{.*}} {
// CHECK-NEXT:         %[[SA:.*]] = aie.objectfifo.acquire @A_1(Consume, 1) : !aie.objectfifosubview<memref<32x16xf32>>
// CHECK-NEXT:         %[[A:.*]] = aie.objectfifo.subview.access %[[SA]][0]
// CHECK-NEXT:         %[[SB:.*]] = aie.objectfifo.acquire @B_2(Consume, 1) : !aie.objectfifosubview<memref<16x16xf32>>
// CHECK-NEXT:         %[[B:.*]] = aie.objectfifo.subview.access %[[SB]][0]
// CHECK-NEXT:         func.call @matmul(%[[A]], %[[B]], %[[C]]) : (memref<32x16xf32>, memref<16x16xf32>, memref<32x16xf32>) -> ()
// CHECK-NEXT:         aie.objectfifo.release @A_1(Consume, 1)
// CHECK-NEXT:         aie.objectfifo.release @B_2(Consume, 1)
// CHECK-NEXT:       }
// CHECK-NEXT:       aie.objectfifo.release @C_1_2(Produce, 1)
// CHECK-NEXT:     }
// CHECK-NEXT:     aie.end

// Per column: C's two blocks back in place; A's row block K tiles at a time; B's column.
// CHECK:        aie.runtime_sequence(%[[AA:.*]]: memref<64x64xf32>, %[[BB:.*]]: memref<64x64xf32>, %[[CC:.*]]: memref<64x64xf32>) {
// CHECK-NEXT:     aiex.npu.dma_memcpy_nd(%[[CC]][0, 0, 0, 0][1, 1, 64, 16][0, 0, 64, 1]) {id = 0 : i64, issue_token = true, metadata = @C_col0} : memref<64x64xf32>
// CHECK-NEXT:     aiex.npu.dma_memcpy_nd(%[[CC]][0, 0, 0, 16][1, 1, 64, 16][0, 0, 64, 1]) {id = 0 : i64, issue_token = true, metadata = @C_col1} : memref<64x64xf32>
// CHECK-NEXT:     aiex.npu.dma_memcpy_nd(%[[CC]][0, 0, 0, 32][1, 1, 64, 16][0, 0, 64, 1]) {id = 0 : i64, issue_token = true, metadata = @C_col2} : memref<64x64xf32>
// CHECK-NEXT:     aiex.npu.dma_memcpy_nd(%[[CC]][0, 0, 0, 48][1, 1, 64, 16][0, 0, 64, 1]) {id = 0 : i64, issue_token = true, metadata = @C_col3} : memref<64x64xf32>
// CHECK-NEXT:     aiex.npu.dma_memcpy_nd(%[[AA]][0, 0, 0, 0][1, 4, 32, 16][0, 16, 64, 1]) {id = 1 : i64, metadata = @A_col0} : memref<64x64xf32>
// CHECK-NEXT:     aiex.npu.dma_memcpy_nd(%[[AA]][0, 0, 0, 2048][1, 4, 32, 16][0, 16, 64, 1]) {id = 1 : i64, metadata = @A_col1} : memref<64x64xf32>
// CHECK-NEXT:     aiex.npu.dma_memcpy_nd(%[[BB]][0, 0, 0, 0][1, 1, 64, 16][0, 0, 64, 1]) {id = 2 : i64, metadata = @B_col0} : memref<64x64xf32>
// CHECK-NEXT:     aiex.npu.dma_memcpy_nd(%[[BB]][0, 0, 0, 16][1, 1, 64, 16][0, 0, 64, 1]) {id = 2 : i64, metadata = @B_col1} : memref<64x64xf32>
// CHECK-NEXT:     aiex.npu.dma_memcpy_nd(%[[BB]][0, 0, 0, 32][1, 1, 64, 16][0, 0, 64, 1]) {id = 1 : i64, metadata = @B_col2} : memref<64x64xf32>
// CHECK-NEXT:     aiex.npu.dma_memcpy_nd(%[[BB]][0, 0, 0, 48][1, 1, 64, 16][0, 0, 64, 1]) {id = 1 : i64, metadata = @B_col3} : memref<64x64xf32>
// CHECK-NEXT:     aiex.npu.dma_wait {symbol = @C_col0}
// CHECK-NEXT:     aiex.npu.dma_wait {symbol = @C_col1}
// CHECK-NEXT:     aiex.npu.dma_wait {symbol = @C_col2}
// CHECK-NEXT:     aiex.npu.dma_wait {symbol = @C_col3}
// CHECK-NEXT:   }

// On npu2 (eight columns) the same grid sits in columns 0..3, staged the same way.
// NPU2:      aie.device(npu2) {
// NPU2:        aie.objectfifo @A_col0(
// NPU2:        aie.objectfifo @A_col1(
// NPU2:        aie.objectfifo @B_col3(%shim_c3r0, {%mem_c3r1}
// NPU2:        aie.objectfifo.link [@C_0_3, @C_1_3] -> [@C_col3]([0, 512] [])
// NPU2-NOT:    aie.tile(4,
