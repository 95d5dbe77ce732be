// A kernel reading three tensors on a compute tile with two input DMA channels: the first two
// (a and b, both sharded, f32) arrive joined in one objectfifo whose element holds a core's
// block of each side by side. The shim fills it by one transfer per stream and part, queued
// on one channel (a's block, b's block, for core 0, then core 1); the memtile distributes it;
// the core views each part at its offset (memref.reinterpret_cast), and the kernel takes
// those parameters as strided views at any offset.
//
// RUN: pto-opt %S/Inputs/joined.mlir -t 'aie{device=npu1_1col}' | FileCheck %s
// RUN: pto-opt %S/Inputs/joined.mlir -t 'aie{device=npu1_1col}' | pto-opt | FileCheck %s
// RUN: pto-opt %S/Inputs/joined.mlir -t 'aie{device=npu1_1col}' --print-op-generic | pto-opt | FileCheck %s

// CHECK:      aie.objectfifo @T_a_T_b(%shim_c0r0, {%mem_c0r1}, 2 : i32) : !aie.objectfifo<memref<2048xf32>>
// CHECK-NEXT: aie.objectfifo @T_a_T_b_0(%mem_c0r1, {%tile_c0r2}, 2 : i32) : !aie.objectfifo<memref<1024xf32>>
// CHECK-NEXT: aie.objectfifo @T_a_T_b_1(%mem_c0r1, {%tile_c0r3}, 2 : i32) : !aie.objectfifo<memref<1024xf32>>
// CHECK-NEXT: aie.objectfifo.link [@T_a_T_b] -> [@T_a_T_b_0, @T_a_T_b_1]([] [0, 1024])
// CHECK:      aie.objectfifo @T_c_all(%mem_c0r1, {%tile_c0r2, %tile_c0r3}, 2 : i32)
// CHECK:      func.func @k(%a: memref<16x32xf32, strided<[32, 1], offset: ?>>, %b: memref<16x32xf32, strided<[32, 1], offset: ?>>, %c: memref<1x32xf32>, %d: memref<16x32xf32>) {
// CHECK:      aie.core(%tile_c0r2)
// CHECK:        %[[C512:.*]] = arith.constant 512 : index
// CHECK:        %[[E:.*]] = aie.objectfifo.subview.access %{{.*}}[0] : !aie.objectfifosubview<memref<1024xf32>> -> memref<1024xf32>
// CHECK-NEXT:   %[[A:.*]] = memref.reinterpret_cast %[[E]] to offset: [%{{.*}}], sizes: [16, 32], strides: [32, 1] : memref<1024xf32> to memref<16x32xf32, strided<[32, 1], offset: ?>>
// CHECK-NEXT:   %[[B:.*]] = memref.reinterpret_cast %[[E]] to offset: [%[[C512]]], sizes: [16, 32], strides: [32, 1]
// CHECK:        func.call @k(%[[A]], %[[B]], %{{.*}}, %{{.*}})
// CHECK-NEXT:   aie.objectfifo.release @T_a_T_b_0(Consume, 1)
// CHECK:      aie.runtime_sequence
// CHECK:        aiex.npu.dma_memcpy_nd(%T_a[0, 0, 0, 0][1, 1, 1, 512][0, 0, 0, 1]) {id = 1 : i64, metadata = @T_a_T_b}
// CHECK-NEXT:   aiex.npu.dma_memcpy_nd(%T_b[0, 0, 0, 0][1, 1, 1, 512][0, 0, 0, 1]) {id = 2 : i64, metadata = @T_a_T_b}
// CHECK-NEXT:   aiex.npu.dma_memcpy_nd(%T_a[0, 0, 0, 512][1, 1, 1, 512][0, 0, 0, 1]) {id = 3 : i64, metadata = @T_a_T_b}
// CHECK-NEXT:   aiex.npu.dma_memcpy_nd(%T_b[0, 0, 0, 512][1, 1, 1, 512][0, 0, 0, 1]) {id = 4 : i64, metadata = @T_a_T_b}
