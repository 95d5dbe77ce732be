// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Verifier rules of the mlir-aie ops beyond the lowering's subset (dialects/aie.py,
// dialects/aiex.py), one chunk each, after mlir-aie's own verifiers where it has one.
// Each chunk's checks start at the separator line pto-opt prints between chunks.

// A logical tile's given coordinates are >= 0.
aie.device(npu1_1col) {
  %t = aie.logical_tile<CoreTile>(-1, ?)
}

// CHECK: error: 'aie.logical_tile' op aie.logical_tile column must be >= 0 or ?, got -1

// -----
// CHECK: //{{ }}-----

// A tile operand is an aie.tile or an aie.logical_tile.
aie.device(npu1_1col) {
  %c = arith.constant 0 : index
  %m = aie.mem(%c) {
    aie.end
  }
}

// CHECK: error: 'aie.mem' op aie.mem's tile must be an aie.tile or aie.logical_tile result

// -----
// CHECK: //{{ }}-----

// aie.mem belongs on a compute tile (aie.memtile_dma on a memtile, aie.shim_dma on a shim tile).
aie.device(npu1_1col) {
  %mt = aie.tile(0, 1)
  %m = aie.mem(%mt) {
    aie.end
  }
}

// CHECK: error: 'aie.mem' op aie.mem on tile (0, 1), a memtile tile; it belongs on a core tile

// -----
// CHECK: //{{ }}-----

// A DMA channel index is >= 0.
aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  %m = aie.mem(%t) {
    %s = aie.dma_start(MM2S, -1, ^bd, ^end)
  ^bd:
    aie.next_bd ^end
  ^end:
    aie.end
  }
}

// CHECK: error: 'aie.dma_start' op aie.dma_start channel must be >= 0, got -1

// -----
// CHECK: //{{ }}-----

// A BD's sizes and strides pair up ...
aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  %b = aie.buffer(%t) {sym_name = "b"} : memref<64xi32>
  %m = aie.mem(%t) {
    %s = aie.dma_start(MM2S, 0, ^bd, ^end)
  ^bd:
    aie.dma_bd(%b : memref<64xi32> sizes = [4, 16] strides = [1])
    aie.next_bd ^end
  ^end:
    aie.end
  }
}

// CHECK: error: 'aie.dma_bd' op aie.dma_bd has 2 sizes but 1 strides; they pair up

// -----
// CHECK: //{{ }}-----

// ... each pad dimension pairs with a size ...
aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  %b = aie.buffer(%t) {sym_name = "b"} : memref<64xi32>
  %m = aie.mem(%t) {
    %s = aie.dma_start(MM2S, 0, ^bd, ^end)
  ^bd:
    aie.dma_bd(%b : memref<64xi32> sizes = [64] strides = [1] pad [<const_pad_before = 1, const_pad_after = 0>, <const_pad_before = 1, const_pad_after = 0>])
    aie.next_bd ^end
  ^end:
    aie.end
  }
}

// CHECK: error: 'aie.dma_bd' op aie.dma_bd pads 2 dimensions but has 1: pad dimensions pair with sizes

// -----
// CHECK: //{{ }}-----

// ... as many SSA entries as the static lists mark (the generic form can disagree) ...
aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  %b = aie.buffer(%t) {sym_name = "b"} : memref<64xi32>
  %m = aie.mem(%t) {
    %s = aie.dma_start(MM2S, 0, ^bd, ^end)
  ^bd:
    "aie.dma_bd"(%b) <{static_sizes = array<i64: -9223372036854775808, 4>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>}> : (memref<64xi32>) -> ()
    aie.next_bd ^end
  ^end:
    aie.end
  }
}

// CHECK: error: 'aie.dma_bd' op aie.dma_bd sizes mark 1 SSA entries but 0 are given

// -----
// CHECK: //{{ }}-----

// ... and offset and length are >= 0.
aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  %b = aie.buffer(%t) {sym_name = "b"} : memref<64xi32>
  %m = aie.mem(%t) {
    %s = aie.dma_start(MM2S, 0, ^bd, ^end)
  ^bd:
    aie.dma_bd(%b : memref<64xi32> offset = -4 len = 16)
    aie.next_bd ^end
  ^end:
    aie.end
  }
}

// CHECK: error: 'aie.dma_bd' op aie.dma_bd offset must be >= 0, got -4

// -----
// CHECK: //{{ }}-----

// A BD chain has a body (its arguments are the entry block's).
aie.device(npu1_1col) {
  "aie.bd_chain"() <{sym_name = "c"}> ({
  }) : () -> ()
}

// CHECK: error: 'aie.bd_chain' op aie.bd_chain @c needs a body

// -----
// CHECK: //{{ }}-----

// A packet type and id fit the 16 bits of the header fields.
aie.device(npu1_1col) {
  %t = aie.tile(0, 2) {controller_id = #aie.packet_info<pkt_type = 0, pkt_id = 70000>}
}

// CHECK: error: packet_info pkt_id must fit in 16 bits, got 70000

// -----
// CHECK: //{{ }}-----

// Stream switch channels are >= 0.
aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  %s = aie.switchbox(%t) {
    aie.connect<South : -1, North : 0>
  }
}

// CHECK: error: 'aie.connect' op aie.connect source channel must be >= 0, got -1

// -----
// CHECK: //{{ }}-----

// An arbiter is 0..5 and a master select 0..3.
aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  %s = aie.switchbox(%t) {
    %a = aie.amsel<6>(0)
  }
}

// CHECK: error: 'aie.amsel' op aie.amsel<6>(0): the arbiter is 0..5 and the master select 0..3

// -----
// CHECK: //{{ }}-----

// A packet flow has a source and a destination.
aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  aie.packet_flow(1) {
    aie.packet_source<%t, DMA : 0>
  }
}

// CHECK: error: 'aie.packet_flow' op aie.packet_flow(1) needs an aie.packet_dest

// -----
// CHECK: //{{ }}-----

// Packet sources and destinations live in a packet flow.
aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  aie.packet_source<%t, DMA : 0>
}

// CHECK: error: 'aie.packet_source' op aie.packet_source must be inside an aie.packet_flow

// -----
// CHECK: //{{ }}-----

// A cascade connects adjacent tiles ...
aie.device(npu1_1col) {
  %a = aie.tile(0, 2)
  %b = aie.tile(0, 4)
  aie.cascade_flow(%a, %b)
}

// CHECK: error: 'aie.cascade_flow' op tiles must be adjacent: (0, 2) and (0, 4)

// -----
// CHECK: //{{ }}-----

// ... that have a cascade interface (not the memtile or shim rows).
aie.device(npu1_1col) {
  %a = aie.tile(0, 1)
  %b = aie.tile(0, 2)
  aie.cascade_flow(%a, %b)
}

// CHECK: error: 'aie.cascade_flow' op memTile row has no cascade stream interface

// -----
// CHECK: //{{ }}-----

// A core event is 0 or 1.
aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  %c = aie.core(%t) {
    aie.event(2)
    aie.end
  }
}

// CHECK: error: 'aie.event' op aie.event takes 0 or 1, got 2

// -----
// CHECK: //{{ }}-----

// A trace unit has 8 event slots.
aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  aie.trace @tr(%t) {
    aie.trace.event <"INSTR_EVENT_0">
    aie.trace.event <"INSTR_EVENT_1">
    aie.trace.event <"INSTR_EVENT_2">
    aie.trace.event <"INSTR_EVENT_3">
    aie.trace.event <"INSTR_EVENT_4">
    aie.trace.event <"INSTR_EVENT_5">
    aie.trace.event <"INSTR_EVENT_6">
    aie.trace.event <"INSTR_EVENT_7">
    aie.trace.event <"INSTR_EVENT_8">
  }
}

// CHECK: error: 'aie.trace' op trace unit supports maximum 8 events, got 9

// -----
// CHECK: //{{ }}-----

// Trace ops live in an aie.trace.
aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  aie.trace.mode "Event-Time"
}

// CHECK: error: 'aie.trace.mode' op aie.trace.mode must be nested in aie.trace

// -----
// CHECK: //{{ }}-----

// A trace packet id is 1..31.
aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  aie.trace @tr(%t) {
    aie.trace.packet id = 0 type = core
  }
}

// CHECK: error: 'aie.trace.packet' op packet ID must be in range [1, 31], got 0

// -----
// CHECK: //{{ }}-----

// A trace start or stop has a broadcast channel or an event ...
aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  aie.trace @tr(%t) {
    aie.trace.start
  }
}

// CHECK: error: 'aie.trace.start' op must specify either broadcast or event

// -----
// CHECK: //{{ }}-----

// ... not both.
aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  aie.trace @tr(%t) {
    aie.trace.stop broadcast=14 event=<"NONE">
  }
}

// CHECK: error: 'aie.trace.stop' op cannot specify both broadcast and event

// -----
// CHECK: //{{ }}-----

// A combo event uses slot 0, 1 or 2.
aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  aie.trace @tr(%t) {
    aie.trace.combo_event <3> <"A"> AND <"B">
  }
}

// CHECK: error: 'aie.trace.combo_event' op combo event slot must be 0, 1, or 2, got 3

// -----
// CHECK: //{{ }}-----

// The host's trace buffer has a size.
aie.device(npu1_1col) {
  aie.runtime_sequence() {
    aie.trace.host_config {reuse_output_buffer = true}
  }
}

// CHECK: error: 'aie.trace.host_config' op aie.trace.host_config needs buffer_size, a positive i32

// -----
// CHECK: //{{ }}-----

// Initial values cover every element of the fifo (the producer's depth) ...
aie.device(npu1_1col) {
  %mt = aie.tile(0, 1)
  %t = aie.tile(0, 2)
  aie.objectfifo @of(%mt, {%t}, 2 : i32) : !aie.objectfifo<memref<4xi32>> = [dense<0> : memref<4xi32>]
}

// CHECK: error: 'aie.objectfifo' op objectfifo @of: `init_values` does not initialize all objects (1 values, depth 2)

// -----
// CHECK: //{{ }}-----

// ... each of the fifo's element type (the generic form can write any) ...
aie.device(npu1_1col) {
  %mt = aie.tile(0, 1)
  %t = aie.tile(0, 2)
  "aie.objectfifo"(%mt, %t) <{sym_name = "of", elemNumber = 1 : i32, elemType = !aie.objectfifo<memref<4xi32>>, dimensionsToStream = [], dimensionsFromStreamPerConsumer = [[]], initValues = [dense<[1, 2]> : tensor<2xi32>]}> : (index, index) -> ()
}

// CHECK: error: 'aie.objectfifo' op objectfifo @of: an initial value must have the element type memref<4xi32>, got tensor<2xi32>

// -----
// CHECK: //{{ }}-----

// ... and a shim producer has none (its data comes from the host).
aie.device(npu1_1col) {
  %s = aie.tile(0, 0)
  %t = aie.tile(0, 2)
  aie.objectfifo @of(%s, {%t}, 1 : i32) : !aie.objectfifo<memref<4xi32>> = [dense<0> : memref<4xi32>]
}

// CHECK: error: 'aie.objectfifo' op objectfifo @of: `init_values` unavailable for shim tiles

// -----
// CHECK: //{{ }}-----

// DMA tasks belong to a runtime sequence ...
aie.device(npu1_1col) {
  %s = aie.tile(0, 0)
  %b = aie.external_buffer : memref<16xi32>
  %t = aiex.dma_configure_task(%s, MM2S, 0) {
    aie.dma_bd(%b : memref<16xi32>)
    aie.end
  }
}

// CHECK: error: 'aiex.dma_configure_task' op aiex.dma_configure_task must be inside an aie.runtime_sequence

// -----
// CHECK: //{{ }}-----

// ... and hold at least one BD.
aie.device(npu1_1col) {
  %s = aie.tile(0, 0)
  aie.runtime_sequence() {
    %t = aiex.dma_configure_task(%s, MM2S, 0) {
      aie.end
    }
  }
}

// CHECK: error: 'aiex.dma_configure_task' op aiex.dma_configure_task needs at least one aie.dma_bd

// -----
// CHECK: //{{ }}-----

// An enum property holds one of its cases' values (the generic form can write any i32).
aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  %s = aie.switchbox(%t) {
    "aie.connect"() <{source_bundle = 99 : i32, source_channel = 0 : i32, dest_bundle = 5 : i32, dest_channel = 0 : i32}> : () -> ()
  }
}

// CHECK: error: 'aie.connect' op 99 is not a wire bundle (expected one of Core = 0, DMA = 1, FIFO = 2, South = 3, West = 4, North = 5, East = 6, PLIO = 7, NOC = 8, Trace = 9, TileControl = 10)

// -----
// CHECK: //{{ }}-----

// aiex.run runs a sequence of the device an aiex.configure sets up.
aie.device(npu1_1col) {
  aie.runtime_sequence(%x: memref<16xi32>) {
    aiex.run @seq(%x) : (memref<16xi32>)
  }
}

// CHECK: error: 'aiex.run' op aiex.run must be inside an aiex.configure
