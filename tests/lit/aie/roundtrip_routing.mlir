// RUN: pto-opt %s --split-input-file | FileCheck %s
// RUN: pto-opt %s --split-input-file | pto-opt --split-input-file | FileCheck %s
// RUN: pto-opt %s --split-input-file --print-op-generic | pto-opt --split-input-file | FileCheck %s

// Stream routing (dialects/aie.py): switchboxes with circuit connections, packet rules with
// arbiters and master sets, the shim multiplexer, wires; packet flows; cascades between
// neighbouring cores; core streams and events; tiles left to placement (aie.logical_tile).
aie.device(xcvc1902) {
  %t20 = aie.tile(2, 0)
  %t21 = aie.tile(2, 1)
  %t22 = aie.tile(2, 2)
  %sb = aie.switchbox(%t21) {
    aie.connect<South : 0, North : 0>
    aie.connect<DMA : 1, Core : 0>
    %a0 = aie.amsel<0>(0)
    %a1 = aie.amsel<1>(3)
    %m0 = aie.masterset(North : 1, %a0, %a1)
    aie.packet_rules(West : 0) {
      aie.rule(31, 1, %a0)
      aie.rule(28, 4, %a1)
    }
    aie.end
  }
  %mux = aie.shim_mux(%t20) {
    aie.connect<DMA : 0, North : 3>
    aie.end
  }
  aie.wire(%mux : North, %sb : South)
  aie.wire(%t22 : Core, %sb : Core)
  aie.packet_flow(10) {
    aie.packet_source<%t20, DMA : 0>
    aie.packet_dest<%t22, Core : 0>
    aie.packet_dest<%t21, DMA : 1>
  } {keep_pkt_header = true}
}

// CHECK: aie.device(xcvc1902) {
// CHECK: %t20 = aie.tile(2, 0)
// CHECK: %t21 = aie.tile(2, 1)
// CHECK: %t22 = aie.tile(2, 2)
// CHECK: %sb = aie.switchbox(%t21) {
// CHECK: aie.connect<South : 0, North : 0>
// CHECK: aie.connect<DMA : 1, Core : 0>
// CHECK: %a0 = aie.amsel<0> (0)
// CHECK: %a1 = aie.amsel<1> (3)
// CHECK: %m0 = aie.masterset(North : 1, %a0, %a1)
// CHECK: aie.packet_rules(West : 0) {
// CHECK: aie.rule(31, 1, %a0)
// CHECK: aie.rule(28, 4, %a1)
// CHECK: aie.end
// CHECK: %mux = aie.shim_mux(%t20) {
// CHECK: aie.connect<DMA : 0, North : 3>
// CHECK: aie.end
// CHECK: aie.wire(%mux : North, %sb : South)
// CHECK: aie.wire(%t22 : Core, %sb : Core)
// CHECK: aie.packet_flow(10) {
// CHECK: aie.packet_source<%t20, DMA : 0>
// CHECK: aie.packet_dest<%t22, Core : 0>
// CHECK: aie.packet_dest<%t21, DMA : 1>
// CHECK: } {keep_pkt_header = true}

// -----

aie.device(npu1) {
  %a = aie.tile(1, 3)
  %b = aie.tile(2, 3)
  %c = aie.tile(2, 4)
  %ctrl = aie.tile(0, 2) {controller_id = #aie.packet_info<pkt_type = 0, pkt_id = 1>}
  aie.cascade_flow(%a, %b)
  aie.cascade_flow(%b, %c)
  aie.configure_cascade(%b, West, North)
  %ca = aie.core(%a) {
    %v = arith.constant dense<1> : vector<16xi32>
    aie.put_cascade(%v : vector<16xi32>)
    aie.end
  }
  %cc = aie.core(%c) {
    %v = aie.get_cascade() : vector<16xi32>
    %ch = arith.constant 0 : i32
    %w = aie.get_stream(%ch : i32) : i32
    aie.put_stream(%ch : i32, %w : i32)
    aie.event(1)
    aie.end
  }
}

// CHECK: aie.device(npu1) {
// CHECK: %a = aie.tile(1, 3)
// CHECK: %b = aie.tile(2, 3)
// CHECK: %c = aie.tile(2, 4)
// CHECK: %ctrl = aie.tile(0, 2) {controller_id = #aie.packet_info<pkt_type = 0, pkt_id = 1>}
// CHECK: aie.cascade_flow(%a, %b)
// CHECK: aie.cascade_flow(%b, %c)
// CHECK: aie.configure_cascade(%b, West, North)
// CHECK: %ca = aie.core(%a) {
// CHECK: %v = arith.constant dense<1> : vector<16xi32>
// CHECK: aie.put_cascade(%v : vector<16xi32>)
// CHECK: aie.end
// CHECK: %cc = aie.core(%c) {
// CHECK: %v_1 = aie.get_cascade() : vector<16xi32>
// CHECK: %ch = arith.constant 0 : i32
// CHECK: %w = aie.get_stream(%ch : i32) : i32
// CHECK: aie.put_stream(%ch : i32, %w : i32)
// CHECK: aie.event(1)
// CHECK: aie.end

// -----

// Logical tiles: a kind, and coordinates that placement fills in (?).
aie.device(npu2) {
  %shim = aie.logical_tile<ShimNOCTile>(?, ?)
  %mem = aie.logical_tile<MemTile>(1, ?)
  %core = aie.logical_tile<CoreTile>(?, 3) {allocation_scheme = "basic-sequential"}
  aie.objectfifo @in(%shim, {%mem}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
  aie.objectfifo @in_l1(%mem, {%core}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
  aie.objectfifo.link [@in] -> [@in_l1]([] [])
  %c = aie.core(%core) {
    aie.end
  }
}

// CHECK: aie.device(npu2) {
// CHECK: %shim = aie.logical_tile<ShimNOCTile>(?, ?)
// CHECK: %mem = aie.logical_tile<MemTile>(1, ?)
// CHECK: %core = aie.logical_tile<CoreTile>(?, 3) {allocation_scheme = "basic-sequential"}
// CHECK: aie.objectfifo @in(%shim, {%mem}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
// CHECK: aie.objectfifo @in_l1(%mem, {%core}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
// CHECK: aie.objectfifo.link [@in] -> [@in_l1]([] [])
// CHECK: %c = aie.core(%core) {
// CHECK: aie.end
