// RUN: pto-opt %s --split-input-file --parsing-diagnostics | FileCheck %s

// Parse errors of the aie / aiex custom syntax.
// Each chunk's checks start at the separator line pto-opt prints between chunks.

aie.device(npu3) {
}

// CHECK: error: expected a device (xcvc1902, xcve2302, xcve2802, npu1, npu1_1col, npu1_2col, npu1_3col, npu2, npu2_1col, npu2_2col, npu2_3col, npu2_4col, npu2_5col, npu2_6col, npu2_7col)

// -----
// CHECK: //{{ }}-----

aie.device(npu1) {
  %a = aie.tile(0, 2)
  %b = aie.tile(0, 3)
  aie.objectfifo @of(%a, {%b}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %c = aie.core(%b) {
    %s = aie.objectfifo.acquire @of(Read, 1) : !aie.objectfifosubview<memref<16xi32>>
    aie.end
  }
}

// CHECK: error: expected a port (Produce or Consume) (Produce, Consume)

// -----
// CHECK: //{{ }}-----

aie.device(npu1) {
  %a = aie.tile(0, 2)
  %b = aie.tile(0, 3)
  aie.objectfifo @of(%a, {%b}, "two") : !aie.objectfifo<memref<16xi32>>
}

// CHECK: error: expected a depth (2 : i32) or depths ([2, 2])

// -----
// CHECK: //{{ }}-----

aie.device(npu1) {
  %a = aie.tile(0, 2)
  %b = aie.tile(0, 3)
  aie.objectfifo @of(%a, {%b}, 2 : i32) : memref<16xi32>
}

// CHECK: error: expected an !aie.objectfifo<memref<...>> type

// -----
// CHECK: //{{ }}-----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.flow(%s, Wire : 0, %t, DMA : 0)
}

// CHECK: error: expected a wire bundle (Core, DMA, FIFO, South, West, North, East, PLIO, NOC, Trace, TileControl)

// -----
// CHECK: //{{ }}-----

aie.device(npu1) {
  aie.runtime_sequence(%x: memref<16xi32>) {
    aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 0][1, 1, 1, 16][0, 0, 0, 1]) {metadata = @in} : memref<16xi32>
  }
}

// CHECK: error: aiex.npu.dma_memcpy_nd needs 'id' in its attributes
