// RUN: pto-opt %s --split-input-file | FileCheck %s
// RUN: pto-opt %s --split-input-file | pto-opt --split-input-file | FileCheck %s
// RUN: pto-opt %s --split-input-file --print-op-generic | pto-opt --split-input-file | FileCheck %s

// Trace setup (dialects/aie.py): a tile's trace unit (mode, packet header, events by name or
// by enum, ports, combo and edge events, start and stop triggers), switched on from the
// runtime sequence, with the host's trace buffer.
aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  %shim = aie.tile(0, 0)
  aie.trace @core_trace(%t) {
    aie.trace.mode "Event-Time"
    aie.trace.packet id = 1 type = core
    aie.trace.event <"INSTR_EVENT_0">
    aie.trace.event <CoreEventAIE2::INSTR_VECTOR> label = "vector"
    aie.trace.port <0> port = North channel = 1 direction = S2MM
    aie.trace.combo_event <0> <"LOCK_STALL"> AND <"DMA_S2MM_0_STALLED">
    aie.trace.edge_event <1> event = <"LOCK_STALL"> trigger = RISING
    aie.trace.start broadcast=15
    aie.trace.stop event=<"BROADCAST_14">
  }
  aie.packet_flow(1) {
    aie.packet_source<%t, Trace : 0>
    aie.packet_dest<%shim, DMA : 1>
  } {keep_pkt_header = true}
  aie.runtime_sequence(%x: memref<64xi32>) {
    aie.trace.host_config {buffer_size = 8192 : i32}
    aie.trace.start_config @core_trace
  }
}

// CHECK: aie.device(npu1_1col) {
// CHECK: %t = aie.tile(0, 2)
// CHECK: %shim = aie.tile(0, 0)
// CHECK: aie.trace @core_trace(%t) {
// CHECK: aie.trace.mode "Event-Time"
// CHECK: aie.trace.packet id = 1 type = core
// CHECK: aie.trace.event <"INSTR_EVENT_0">
// CHECK: aie.trace.event <CoreEventAIE2::INSTR_VECTOR> label = "vector"
// CHECK: aie.trace.port<0> port = North channel = 1 direction = S2MM
// CHECK: aie.trace.combo_event<0> <"LOCK_STALL"> AND <"DMA_S2MM_0_STALLED">
// CHECK: aie.trace.edge_event<1> event = <"LOCK_STALL"> trigger = RISING
// CHECK: aie.trace.start broadcast=15
// CHECK: aie.trace.stop event=<"BROADCAST_14">
// CHECK: aie.packet_flow(1) {
// CHECK: aie.packet_source<%t, Trace : 0>
// CHECK: aie.packet_dest<%shim, DMA : 1>
// CHECK: } {keep_pkt_header = true}
// CHECK: aie.runtime_sequence(%x: memref<64xi32>) {
// CHECK: aie.trace.host_config {buffer_size = 8192 : i32}
// CHECK: aie.trace.start_config @core_trace
