// RUN: pto-opt %s --split-input-file --parsing-diagnostics | FileCheck %s

// Parse errors of the mlir-aie ops beyond the lowering's subset (dialects/aie.py).
// Each chunk's checks start at the separator line pto-opt prints between chunks.

// An unknown kind of logical tile.
aie.device(npu1_1col) {
  %t = aie.logical_tile<ComputeTile>(?, ?)
}

// CHECK: error: expected a tile type (CoreTile, MemTile, ShimNOCTile, ShimPLTile)

// -----
// CHECK: //{{ }}-----

// A packet header names pkt_type and pkt_id, each once.
aie.device(npu1_1col) {
  %t = aie.tile(0, 2) {controller_id = #aie.packet_info<pkt_type = 0, pkt_type = 1>}
}

// CHECK: error: expected one of pkt_type, pkt_id, each once

// -----
// CHECK: //{{ }}-----

// An initial value has the fifo's element type.
aie.device(npu1_1col) {
  %mt = aie.tile(0, 1)
  %t = aie.tile(0, 2)
  aie.objectfifo @of(%mt, {%t}, 1 : i32) : !aie.objectfifo<memref<4xi32>> = [dense<0> : memref<8xi32>]
}

// CHECK: error: an initial value must have the fifo's element type memref<4xi32>

// -----
// CHECK: //{{ }}-----

// A block floating point format upstream knows.
aie.device(npu1_1col) {
  %b = aie.external_buffer : memref<4x!aiex.bfp<"v4bfp8">>
}

// CHECK: error: unknown block floating point format 'v4bfp8' (known: v8bfp16ebs8, v16bfp16ebs16)

// -----
// CHECK: //{{ }}-----

// An unknown wire bundle.
aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  %s = aie.switchbox(%t) {
    aie.connect<Up : 0, North : 0>
  }
}

// CHECK: error: expected a wire bundle (Core, DMA, FIFO, South, West, North, East, PLIO, NOC, Trace, TileControl)
