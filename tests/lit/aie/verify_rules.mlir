// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// mlir-aie's buffer-descriptor and objectfifo rules in our verifiers (dialects/aie_rules.py),
// one chunk each; docs/targets/aie.md lists them with their upstream sources.

// Element width: at most 32-bit elements (NpuDmaMemcpyNdOp::verify), whatever the metadata.
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %a = aie.tile(0, 2)
  aie.objectfifo @in(%s, {%a}, 2 : i32) : !aie.objectfifo<memref<16xf64>>
  aie.runtime_sequence(%x: memref<16xf64>) {
    aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 0][1, 1, 1, 16][0, 0, 0, 1]) {id = 0 : i64, metadata = @in} : memref<16xf64>
  }
}

// CHECK: error: 'aiex.npu.dma_memcpy_nd' op elements are 64-bit; dma_memcpy_nd moves elements of at most 32 bits (NpuDmaMemcpyNdOp::verify)

// -----
// CHECK: //{{ }}-----

// At least 32 bits in the buffer.
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %a = aie.tile(0, 2)
  aie.objectfifo @in(%s, {%a}, 2 : i32) : !aie.objectfifo<memref<2xi8>>
  aie.runtime_sequence(%x: memref<2xi8>) {
    aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 0][1, 1, 1, 2][0, 0, 0, 1]) {id = 0 : i64, metadata = @in} : memref<2xi8>
  }
}

// CHECK: error: 'aiex.npu.dma_memcpy_nd' op the buffer holds fewer than 32 bits (NpuDmaMemcpyNdOp::verify)

// -----
// CHECK: //{{ }}-----

// Offsets 4-byte aligned: 3 i8 elements in.
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %a = aie.tile(0, 2)
  aie.objectfifo @in(%s, {%a}, 2 : i32) : !aie.objectfifo<memref<16xi8>>
  aie.runtime_sequence(%x: memref<64xi8>) {
    aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 3][1, 1, 1, 16][0, 0, 0, 1]) {id = 0 : i64, metadata = @in} : memref<64xi8>
  }
}

// CHECK: error: 'aiex.npu.dma_memcpy_nd' op the offset is 3 bytes, not a multiple of 4 (NpuDmaMemcpyNdOp::verify: offset must be 4-byte-aligned)

// -----
// CHECK: //{{ }}-----

// 4-byte granularity of the innermost size (verifyStridesWraps), once the shim tile is known.
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %a = aie.tile(0, 2)
  aie.shim_dma_allocation @in(%s, MM2S, 0)
  aie.runtime_sequence(%x: memref<8x6xi8>) {
    aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 0][1, 1, 8, 3][0, 0, 6, 1]) {id = 0 : i64, metadata = @in} : memref<8x6xi8>
  }
}

// CHECK: error: 'aiex.npu.dma_memcpy_nd' op the innermost size is 3 elements of 1 bytes = 3 bytes, not a multiple of 4 (verifyStridesWraps: 4-byte granularity)

// -----
// CHECK: //{{ }}-----

// ... and of every stride but a unit innermost one.
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %a = aie.tile(0, 2)
  aie.shim_dma_allocation @in(%s, MM2S, 0)
  aie.runtime_sequence(%x: memref<8x6xi16>) {
    aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 0][1, 1, 8, 2][0, 0, 3, 1]) {id = 0 : i64, metadata = @in} : memref<8x6xi16>
  }
}

// CHECK: error: 'aiex.npu.dma_memcpy_nd' op stride 1 is 3 elements of 2 bytes = 6 bytes, not a multiple of 4 (verifyStridesWraps: 4-byte granularity)

// -----
// CHECK: //{{ }}-----

// Strides step at most 2^20 + 1 words on a shim tile (20-bit step field, stored minus one).
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %a = aie.tile(0, 2)
  aie.shim_dma_allocation @in(%s, MM2S, 0)
  aie.runtime_sequence(%x: memref<4194304xi32>) {
    aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 0][1, 1, 2, 16][0, 0, 1048578, 1]) {id = 0 : i64, metadata = @in} : memref<4194304xi32>
  }
}

// CHECK: error: 'aiex.npu.dma_memcpy_nd' op stride 1 is 1048578 32-bit words; a shim buffer descriptor steps at most 1048577 (verifyStridesWraps: 20-bit step fields)

// -----
// CHECK: //{{ }}-----

// Wraps beyond 1023 words pass the verifier, as upstream's (its aie-decompose-large-dma-bd
// splits such a pattern); the lowering keeps within one descriptor (test_aie_rules.py).
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %a = aie.tile(0, 2)
  aie.shim_dma_allocation @in(%s, MM2S, 0)
  aie.runtime_sequence(%x: memref<4096xi32>) {
    aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 0][1, 1, 2, 1024][0, 0, 2048, 1]) {id = 0 : i64, metadata = @in} : memref<4096xi32>
  }
}

// CHECK-NOT: error
// CHECK: aiex.npu.dma_memcpy_nd(%{{.*}}[0, 0, 0, 0][1, 1, 2, 1024][0, 0, 2048, 1])

// -----
// CHECK: //{{ }}-----

// The repeat count (outermost size) at most 65 in the verifier (6-bit iteration field, stored minus one).
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %a = aie.tile(0, 2)
  aie.shim_dma_allocation @in(%s, MM2S, 0)
  aie.runtime_sequence(%x: memref<16xi32>) {
    aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 0][66, 1, 1, 16][0, 0, 0, 1]) {id = 0 : i64, metadata = @in} : memref<16xi32>
  }
}

// CHECK: error: 'aiex.npu.dma_memcpy_nd' op the repeat (outermost) size is 66; a shim buffer descriptor repeats at most 65 times (verifyStridesWraps: 6-bit iteration count)

// -----
// CHECK: //{{ }}-----

// Legal: i8 columns of whole words at a word offset; a row-major scan beyond 1023 words (linear mode).
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %a = aie.tile(0, 2)
  aie.shim_dma_allocation @in(%s, MM2S, 0)
  aie.runtime_sequence(%x: memref<8x8xi8>, %y: memref<8192xi32>) {
    aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 4][1, 1, 8, 4][0, 0, 8, 1]) {id = 0 : i64, metadata = @in} : memref<8x8xi8>
    aiex.npu.dma_memcpy_nd(%y[0, 0, 0, 0][1, 1, 4, 2048][0, 0, 2048, 1]) {id = 1 : i64, metadata = @in} : memref<8192xi32>
  }
}

// CHECK-NOT: error
// CHECK: aiex.npu.dma_memcpy_nd(%{{.*}}[0, 0, 0, 4][1, 1, 8, 4][0, 0, 8, 1])
// CHECK: aiex.npu.dma_memcpy_nd(%{{.*}}[0, 0, 0, 0][1, 1, 4, 2048][0, 0, 2048, 1])

// -----
// CHECK: //{{ }}-----

// Objectfifo ends agree on the scalar element type (ObjectFifoCreateOp::verify) ...
aie.device(npu1) {
  %a = aie.tile(0, 2)
  %b = aie.tile(0, 3)
  aie.objectfifo @f(%a, {%b}, 2 : i32) : !aie.objectfifo<memref<16xi32>> -> !aie.objectfifo<memref<8xf32>>
}

// CHECK: error: 'aie.objectfifo' op objectfifo @f: producer and consumer must have the same scalar element type, but got i32 vs f32

// -----
// CHECK: //{{ }}-----

// ... and the producer's element is a whole number of the consumer's.
aie.device(npu1) {
  %a = aie.tile(0, 2)
  %b = aie.tile(0, 3)
  aie.objectfifo @f(%a, {%b}, 2 : i32) : !aie.objectfifo<memref<16xi32>> -> !aie.objectfifo<memref<6xi32>>
}

// CHECK: error: 'aie.objectfifo' op objectfifo @f: producer element size (16) must be an integer multiple of consumer element size (6)

// -----
// CHECK: //{{ }}-----

// Repeat counts: none on a shim producer ...
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %b = aie.tile(0, 2)
  aie.objectfifo @f(%s, {%b}, 2 : i32) {repeat_count = 2 : i32} : !aie.objectfifo<memref<16xi32>>
}

// CHECK: error: 'aie.objectfifo' op objectfifo @f: `repeat_count` unavailable for shim tiles

// -----
// CHECK: //{{ }}-----

// ... and the outputs of a distribute repeat alike (ObjectFifoLinkOp::verify).
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %m = aie.tile(0, 1)
  %a = aie.tile(0, 2)
  %b = aie.tile(0, 3)
  aie.objectfifo @in(%s, {%m}, 2 : i32) : !aie.objectfifo<memref<32xi32>>
  aie.objectfifo @x(%m, {%a}, 2 : i32) {repeat_count = 2 : i32} : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @y(%m, {%b}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo.link [@in] -> [@x, @y]([] [0, 16])
}

// CHECK: error: 'aie.objectfifo.link' op repeat counts of output object FIFOs must be equal
