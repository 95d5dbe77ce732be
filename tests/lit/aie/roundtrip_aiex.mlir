// RUN: pto-opt %s --split-input-file | FileCheck %s
// RUN: pto-opt %s --split-input-file | pto-opt --split-input-file | FileCheck %s
// RUN: pto-opt %s --split-input-file --print-op-generic | pto-opt --split-input-file | FileCheck %s

// Host-side ops of aiex (dialects/aiex.py): DMA tasks on a tile's channel or an objectfifo's
// shim end, started, awaited and freed; BD chains; run-time BD ids; channel and core resets;
// host lock writes.
aie.device(npu1_1col) {
  %shim = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  %lock = aie.lock(%t, 0) {init = 0 : i32}
  aie.objectfifo @of(%shim, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.bd_chain @chain(%buf: memref<8xi16>, %buf2: memref<8xi16>) {
    aie.dma_bd(%buf : memref<8xi16> offset = 0 len = 8)
    aie.next_bd ^bb1
  ^bb1:
    aie.dma_bd(%buf2 : memref<8xi16> offset = 0 len = 8)
    aie.end
  }
  aie.runtime_sequence(%x: memref<16xi32>, %y: memref<8xi16>, %r: i32) {
    %t1 = aiex.dma_configure_task(%shim, MM2S, 0) {
      aie.dma_bd(%x : memref<16xi32> offset = 0 len = 16) {bd_id = 0 : i32}
      aie.end
    } {issue_token = true, repeat_count = 2 : i32}
    %t2 = aiex.dma_configure_task(%shim, MM2S, 1, <pkt_type = 0, pkt_id = 4>) repeat %r : i32 {
      aie.dma_bd(%x : memref<16xi32>)
      aie.end
    }
    %t3 = aiex.dma_configure_task_for @of {
      aie.dma_bd(%x : memref<16xi32>)
      aie.end
    }
    aiex.dma_start_task(%t1)
    aiex.dma_start_task(%t2)
    aiex.dma_start_task(%t3)
    aiex.dma_await_task(%t1)
    aiex.dma_free_task(%t2)
    %c = aiex.dma_start_bd_chain @chain(%y, %y) : (memref<8xi16>, memref<8xi16>) on (%shim, S2MM, 0)
    %f = aiex.dma_start_bd_chain_for @chain(%y, %y) : (memref<8xi16>, memref<8xi16>) for @of
    %id = aiex.dma_bd_pool_pop(0, 0) : i32
    aiex.dma_bd_pool_push(0, 0) bd_id %id : i32
    aiex.dma_channel_reset(%shim, S2MM, 0)
    aiex.dma_channel_reset_for(@of)
    aiex.core_reset(%t)
    aiex.set_lock(%lock, 1)
  }
}

// CHECK: aie.device(npu1_1col) {
// CHECK: %shim = aie.tile(0, 0)
// CHECK: %t = aie.tile(0, 2)
// CHECK: %lock = aie.lock(%t, 0) {init = 0 : i32}
// CHECK: aie.objectfifo @of(%shim, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
// CHECK: aie.bd_chain @chain(%buf: memref<8xi16>, %buf2: memref<8xi16>) {
// CHECK: aie.dma_bd(%buf : memref<8xi16> offset = 0 len = 8)
// CHECK: aie.next_bd ^bb1
// CHECK: ^bb1:
// CHECK: aie.dma_bd(%buf2 : memref<8xi16> offset = 0 len = 8)
// CHECK: aie.end
// CHECK: aie.runtime_sequence(%x: memref<16xi32>, %y: memref<8xi16>, %r: i32) {
// CHECK: %t1 = aiex.dma_configure_task(%shim, MM2S, 0) {
// CHECK: aie.dma_bd(%x : memref<16xi32> offset = 0 len = 16) {bd_id = 0 : i32}
// CHECK: aie.end
// CHECK: } {issue_token = true, repeat_count = 2 : i32}
// CHECK: %t2 = aiex.dma_configure_task(%shim, MM2S, 1, <pkt_type = 0, pkt_id = 4>) repeat %r : i32 {
// CHECK: aie.dma_bd(%x : memref<16xi32>)
// CHECK: aie.end
// CHECK: %t3 = aiex.dma_configure_task_for @of {
// CHECK: aie.dma_bd(%x : memref<16xi32>)
// CHECK: aie.end
// CHECK: aiex.dma_start_task(%t1)
// CHECK: aiex.dma_start_task(%t2)
// CHECK: aiex.dma_start_task(%t3)
// CHECK: aiex.dma_await_task(%t1)
// CHECK: aiex.dma_free_task(%t2)
// CHECK: %c = aiex.dma_start_bd_chain @chain(%y, %y) : (memref<8xi16>, memref<8xi16>) on (%shim, S2MM, 0)
// CHECK: %f = aiex.dma_start_bd_chain_for @chain(%y, %y) : (memref<8xi16>, memref<8xi16>) for @of
// CHECK: %id = aiex.dma_bd_pool_pop(0, 0) : i32
// CHECK: aiex.dma_bd_pool_push(0, 0) bd_id %id : i32
// CHECK: aiex.dma_channel_reset(%shim, S2MM, 0)
// CHECK: aiex.dma_channel_reset_for(@of)
// CHECK: aiex.core_reset(%t)
// CHECK: aiex.set_lock(%lock, 1)

// -----

// NPU instructions: register writes, syncs, block writes, address patches, run-time
// parameters, queue pushes, raw BD writes, PDI loads, preemption, control packets; an
// unranked host buffer and a packet header in dma_memcpy_nd.
aie.device(npu1_1col) {
  %shim = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  %rtp = aie.buffer(%t) {sym_name = "rtp"} : memref<16xi32>
  aie.shim_dma_allocation @in(%shim, MM2S, 0)
  aie.shim_dma_allocation @in_pkt(%shim, MM2S, 1, <pkt_type = 0, pkt_id = 2>)
  aie.runtime_sequence(%x: memref<*xi32>, %y: memref<64x64xi8>) {
    %a = arith.constant 119300 : i32
    %v = arith.constant 7 : i32
    %m = arith.constant 255 : i32
    aiex.npu.write32(%a, %v) {column = 0 : i32, row = 2 : i32} : i32, i32
    aiex.npu.maskwrite32(%a, %v, %m) : i32, i32, i32
    aiex.npu.sync(%v, %v, %v, %v, %v, %v) : i32, i32, i32, i32, i32, i32
    %d = memref.get_global @blockwrite_data : memref<4xi32>
    aiex.npu.blockwrite(%d) {address = 119300 : ui32} : memref<4xi32>
    aiex.npu.address_patch(%v : i32) {addr = 118788 : ui32, arg_idx = 0 : i32}
    aiex.npu.rtp_write(@rtp, 4, %v) : i32
    aiex.npu.push_queue(0, 0, MM2S : 0) bd_id %v repeat %v {issue_token = true} : i32, i32
    aiex.npu.writebd {bd_id = 1 : i32, buffer_length = 4096 : i32, column = 0 : i32, row = 0 : i32}
    aiex.npu.load_pdi {device_ref = @other}
    aiex.npu.preempt {level = 1 : ui8}
    aiex.control_packet {address = 8 : ui32, data = array<i32: 300>, opcode = 0 : i32, stream_id = 0 : i32}
    aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 0][1, 1, 1, 64][0, 0, 0, 1]) {id = 0 : i64, metadata = @in} : memref<*xi32>
    aiex.npu.dma_memcpy_nd(%y[0, 0, 0, 0][1, 1, 64, 64][0, 0, 64, 1], packet = <pkt_type = 0, pkt_id = 3>) {id = 1 : i64, metadata = @in} : memref<64x64xi8>
  }
}

// CHECK: aie.device(npu1_1col) {
// CHECK: %shim = aie.tile(0, 0)
// CHECK: %t = aie.tile(0, 2)
// CHECK: %rtp = aie.buffer(%t) {sym_name = "rtp"} : memref<16xi32>
// CHECK: aie.shim_dma_allocation @in(%shim, MM2S, 0)
// CHECK: aie.shim_dma_allocation @in_pkt(%shim, MM2S, 1, <pkt_type = 0, pkt_id = 2>)
// CHECK: aie.runtime_sequence(%x: memref<*xi32>, %y: memref<64x64xi8>) {
// CHECK: %a = arith.constant 119300 : i32
// CHECK: %v = arith.constant 7 : i32
// CHECK: %m = arith.constant 255 : i32
// CHECK: aiex.npu.write32(%a, %v) {column = 0 : i32, row = 2 : i32} : i32, i32
// CHECK: aiex.npu.maskwrite32(%a, %v, %m) : i32, i32, i32
// CHECK: aiex.npu.sync(%v, %v, %v, %v, %v, %v) : i32, i32, i32, i32, i32, i32
// CHECK: %d = memref.get_global @blockwrite_data : memref<4xi32>
// CHECK: aiex.npu.blockwrite(%d) {address = 119300 : ui32} : memref<4xi32>
// CHECK: aiex.npu.address_patch(%v : i32) {addr = 118788 : ui32, arg_idx = 0 : i32}
// CHECK: aiex.npu.rtp_write(@rtp, 4, %v) : i32
// CHECK: aiex.npu.push_queue(0, 0, MM2S : 0) bd_id %v repeat %v {issue_token = true} : i32, i32
// CHECK: aiex.npu.writebd {bd_id = 1 : i32, buffer_length = 4096 : i32, column = 0 : i32, row = 0 : i32}
// CHECK: aiex.npu.load_pdi {device_ref = @other}
// CHECK: aiex.npu.preempt {level = 1 : ui8}
// CHECK: aiex.control_packet {address = 8 : ui32, data = array<i32: 300>, opcode = 0 : i32, stream_id = 0 : i32}
// CHECK: aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 0][1, 1, 1, 64][0, 0, 0, 1]) {id = 0 : i64, metadata = @in} : memref<*xi32>
// CHECK: aiex.npu.dma_memcpy_nd(%y[0, 0, 0, 0][1, 1, 64, 64][0, 0, 64, 1], packet = <pkt_type = 0, pkt_id = 3>) {id = 1 : i64, metadata = @in} : memref<64x64xi8>

// -----

// Reconfiguration and tokens: a runtime sequence configuring another device and running its
// sequence; tokens and the memcpy between two tiles' buffers.
module {
  aie.device(npu1_1col) @dev_a {
    aie.runtime_sequence @seq_a(%x: memref<16xi32>) {
    }
  }
  aie.device(npu1_1col) @main {
    %t2 = aie.tile(0, 2)
    %t3 = aie.tile(0, 3)
    %a = aie.buffer(%t2) {sym_name = "a"} : memref<256xi32>
    %b = aie.buffer(%t3) {sym_name = "b"} : memref<256xi32>
    aiex.token(0) {sym_name = "token0"}
    aiex.memcpy @token0(1, 2) (%t2 : <%a, 0, 256>, %t3 : <%b, 0, 256>) : (memref<256xi32>, memref<256xi32>)
    %c = aie.core(%t3) {
      aiex.useToken @token0(Acquire, 2)
      aiex.useToken @token0(Release, 3)
      aie.end
    }
    aie.runtime_sequence(%x: memref<16xi32>) {
      aiex.configure @dev_a {
        aiex.run @seq_a(%x) : (memref<16xi32>)
      }
    }
  }
}

// CHECK: aie.device(npu1_1col) @dev_a {
// CHECK: aie.runtime_sequence @seq_a(%x: memref<16xi32>) {
// CHECK: aie.device(npu1_1col) {
// CHECK: %t2 = aie.tile(0, 2)
// CHECK: %t3 = aie.tile(0, 3)
// CHECK: %a = aie.buffer(%t2) {sym_name = "a"} : memref<256xi32>
// CHECK: %b = aie.buffer(%t3) {sym_name = "b"} : memref<256xi32>
// CHECK: aiex.token(0) {sym_name = "token0"}
// CHECK: aiex.memcpy @token0(1, 2) (%t2 : <%a, 0, 256>, %t3 : <%b, 0, 256>) : (memref<256xi32>, memref<256xi32>)
// CHECK: %c = aie.core(%t3) {
// CHECK: aiex.useToken @token0(Acquire, 2)
// CHECK: aiex.useToken @token0(Release, 3)
// CHECK: aie.end
// CHECK: aie.runtime_sequence(%x_1: memref<16xi32>) {
// CHECK: aiex.configure @dev_a {
// CHECK: aiex.run @seq_a(%x_1) : (memref<16xi32>)

// -----

// Legacy stream multicast and packet broadcast; run-time parameters kept in the firmware's
// scratchpad; a run-time BD field bound; block floating point elements.
aiex.scratchpad_parameter @gain : i32
aie.device(npu1_1col) {
  %shim = aie.tile(0, 0)
  %a = aie.tile(0, 2)
  %b = aie.tile(0, 3)
  aiex.multicast(%shim, DMA : 0) {
    aiex.multi_dest<%a, DMA : 0>
    aiex.multi_dest<%b, DMA : 0>
  }
  aiex.broadcast_packet(%shim, DMA : 1) {
    aiex.bp_id(1) {
      aiex.bp_dest<%a, DMA : 1>
    }
    aiex.bp_id(2) {
      aiex.bp_dest<%b, DMA : 1>
    }
  }
  aie.objectfifo @blocks(%shim, {%a}, 2 : i32) : !aie.objectfifo<memref<16x!aiex.bfp<"v8bfp16ebs8">>>
  %c = aie.core(%a) {
    %g = aiex.read_scratchpad_parameter @gain : i32
    aie.end
  }
  aie.runtime_sequence(%x: memref<16xi32>, %n: i32) {
    aiex.npu.create_scratchpad {size = 64 : ui32}
    aiex.sync_scratchpad_parameters_from_host
    aiex.npu.assert_bd_field(%n) {max = 1023 : i32} : i32
  }
}

// CHECK: aiex.scratchpad_parameter @gain : i32
// CHECK: aie.device(npu1_1col) {
// CHECK: %shim = aie.tile(0, 0)
// CHECK: %a = aie.tile(0, 2)
// CHECK: %b = aie.tile(0, 3)
// CHECK: aiex.multicast(%shim, DMA : 0) {
// CHECK: aiex.multi_dest<%a, DMA : 0>
// CHECK: aiex.multi_dest<%b, DMA : 0>
// CHECK: aiex.broadcast_packet(%shim, DMA : 1) {
// CHECK: aiex.bp_id(1) {
// CHECK: aiex.bp_dest<%a, DMA : 1>
// CHECK: aiex.bp_id(2) {
// CHECK: aiex.bp_dest<%b, DMA : 1>
// CHECK: aie.objectfifo @blocks(%shim, {%a}, 2 : i32) : !aie.objectfifo<memref<16x!aiex.bfp<"v8bfp16ebs8">>>
// CHECK: %c = aie.core(%a) {
// CHECK: %g = aiex.read_scratchpad_parameter @gain : i32
// CHECK: aie.end
// CHECK: aie.runtime_sequence(%x: memref<16xi32>, %n: i32) {
// CHECK: aiex.npu.create_scratchpad {size = 64 : ui32}
// CHECK: aiex.sync_scratchpad_parameters_from_host
// CHECK: aiex.npu.assert_bd_field(%n) {max = 1023 : i32} : i32
