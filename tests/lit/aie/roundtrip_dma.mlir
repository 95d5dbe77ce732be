// RUN: pto-opt %s --split-input-file | FileCheck %s
// RUN: pto-opt %s --split-input-file | pto-opt --split-input-file | FileCheck %s
// RUN: pto-opt %s --split-input-file --print-op-generic | pto-opt --split-input-file | FileCheck %s

// Lower-level DMA programs (dialects/aie.py): a tile's aie.mem / aie.memtile_dma /
// aie.shim_dma region of aie.dma_start heads and aie.dma_bd + aie.next_bd chains; the
// loop form aie.dma; BDs with offsets, lengths, n-d sizes and strides (SSA entries too),
// padding, packet headers and iteration state; external buffers.
aie.device(npu1_1col) {
  %shim = aie.tile(0, 0)
  %mt = aie.tile(0, 1)
  %t = aie.tile(0, 2)
  %buf = aie.buffer(%t) {sym_name = "buf"} : memref<256xi32>
  %prod = aie.lock(%t, 0) {init = 1 : i32}
  %cons = aie.lock(%t, 1) {init = 0 : i32}
  %m = aie.mem(%t) {
    %s0 = aie.dma_start(S2MM, 0, ^bd0, ^next)
  ^bd0:
    %one = arith.constant 1 : i32
    aie.use_lock(%prod, AcquireGreaterEqual, %one)
    aie.dma_bd(%buf : memref<256xi32> offset = 0 len = 256) {bd_id = 0 : i32}
    aie.use_lock(%cons, Release, %one)
    aie.next_bd ^bd0
  ^next:
    %s1 = aie.dma_start(MM2S, 1, ^bd1, ^end, repeat_count = 3)
  ^bd1:
    aie.dma_bd(%buf : memref<256xi32> offset = 16 len = 64 sizes = [4, 16] strides = [32, 1]) {packet = #aie.packet_info<pkt_type = 0, pkt_id = 2>}
    aie.next_bd ^end
  ^end:
    aie.end
  }
  %mbuf = aie.buffer(%mt) {sym_name = "mbuf"} : memref<13xi32>
  %md = aie.memtile_dma(%mt) {
    %s = aie.dma_start(MM2S, 0, ^bd, ^end)
  ^bd:
    aie.dma_bd(%mbuf : memref<13xi32> offset = 0 len = 16 sizes = [1, 13] strides = [0, 1] pad [<const_pad_before = 2, const_pad_after = 1>]) {iteration = #aie.bd_iteration<size = 4, stride = 16, current = 0>}
    aie.next_bd ^end
  ^end:
    aie.end
  }
  %ext = aie.external_buffer {sym_name = "host_in"} : memref<512xi32>
  %sd = aie.shim_dma(%shim) {
    %s = aie.dma_start(MM2S, 0, ^bd, ^end)
  ^bd:
    aie.dma_bd(%ext : memref<512xi32> len = 512)
    aie.dma_bd_packet(0, 3)
    aie.next_bd ^bd
  ^end:
    aie.end
  }
}

// CHECK: aie.device(npu1_1col) {
// CHECK: %shim = aie.tile(0, 0)
// CHECK: %mt = aie.tile(0, 1)
// CHECK: %t = aie.tile(0, 2)
// CHECK: %buf = aie.buffer(%t) {sym_name = "buf"} : memref<256xi32>
// CHECK: %prod = aie.lock(%t, 0) {init = 1 : i32}
// CHECK: %cons = aie.lock(%t, 1) {init = 0 : i32}
// CHECK: %m = aie.mem(%t) {
// CHECK: %s0 = aie.dma_start(S2MM, 0, ^bd0, ^next)
// CHECK: ^bd0:
// CHECK: %one = arith.constant 1 : i32
// CHECK: aie.use_lock(%prod, AcquireGreaterEqual, %one)
// CHECK: aie.dma_bd(%buf : memref<256xi32> offset = 0 len = 256) {bd_id = 0 : i32}
// CHECK: aie.use_lock(%cons, Release, %one)
// CHECK: aie.next_bd ^bd0
// CHECK: ^next:
// CHECK: %s1 = aie.dma_start(MM2S, 1, ^bd1, ^end, repeat_count = 3)
// CHECK: ^bd1:
// CHECK: aie.dma_bd(%buf : memref<256xi32> offset = 16 len = 64 sizes = [4, 16] strides = [32, 1]) {packet = #aie.packet_info<pkt_type = 0, pkt_id = 2>}
// CHECK: aie.next_bd ^end
// CHECK: ^end:
// CHECK: aie.end
// CHECK: %mbuf = aie.buffer(%mt) {sym_name = "mbuf"} : memref<13xi32>
// CHECK: %md = aie.memtile_dma(%mt) {
// CHECK: %s = aie.dma_start(MM2S, 0, ^bd, ^end_1)
// CHECK: ^bd:
// CHECK: aie.dma_bd(%mbuf : memref<13xi32> offset = 0 len = 16 sizes = [1, 13] strides = [0, 1] pad [<const_pad_before = 2, const_pad_after = 1>]) {iteration = #aie.bd_iteration<size = 4, stride = 16, current = 0>}
// CHECK: aie.next_bd ^end_1
// CHECK: ^end_1:
// CHECK: aie.end
// CHECK: %ext = aie.external_buffer {sym_name = "host_in"} : memref<512xi32>
// CHECK: %sd = aie.shim_dma(%shim) {
// CHECK: %s_1 = aie.dma_start(MM2S, 0, ^bd_1, ^end_2)
// CHECK: ^bd_1:
// CHECK: aie.dma_bd(%ext : memref<512xi32> len = 512)
// CHECK: aie.dma_bd_packet(0, 3)
// CHECK: aie.next_bd ^bd_1
// CHECK: ^end_2:
// CHECK: aie.end

// -----

// The loop form: one region per BD, repeated by the channel.
aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  %a = aie.buffer(%t) {sym_name = "a"} : memref<16xi32>
  %b = aie.buffer(%t) {sym_name = "b"} : memref<16xi32>
  %m = aie.mem(%t) {
    %0 = aie.dma(S2MM, 0) [{
      aie.dma_bd(%a : memref<16xi32>)
    }, {
      aie.dma_bd(%b : memref<16xi32>)
    }]
    aie.end
  }
}

// CHECK: aie.device(npu1_1col) {
// CHECK: %t = aie.tile(0, 2)
// CHECK: %a = aie.buffer(%t) {sym_name = "a"} : memref<16xi32>
// CHECK: %b = aie.buffer(%t) {sym_name = "b"} : memref<16xi32>
// CHECK: %m = aie.mem(%t) {
// CHECK: %0 = aie.dma(S2MM, 0) [{
// CHECK: aie.dma_bd(%a : memref<16xi32>)
// CHECK: aie.dma_bd(%b : memref<16xi32>)
// CHECK: aie.end

// -----

// A BD whose offset, length and sizes are run-time values.
aie.device(npu1_1col) {
  %shim = aie.tile(0, 0)
  aie.runtime_sequence(%x: memref<64xi32>, %n: i32, %k: i64) {
    %t = aiex.dma_configure_task(%shim, MM2S, 0) {
      aie.dma_bd(%x : memref<64xi32> offset = %n len = 64 sizes = [%k, 16] strides = [16, 1])
      aie.end
    }
    aiex.dma_start_task(%t)
  }
}

// CHECK: aie.device(npu1_1col) {
// CHECK: %shim = aie.tile(0, 0)
// CHECK: aie.runtime_sequence(%x: memref<64xi32>, %n: i32, %k: i64) {
// CHECK: %t = aiex.dma_configure_task(%shim, MM2S, 0) {
// CHECK: aie.dma_bd(%x : memref<64xi32> offset = %n len = 64 sizes = [%k, 16] strides = [16, 1])
// CHECK: aie.end
// CHECK: aiex.dma_start_task(%t)
