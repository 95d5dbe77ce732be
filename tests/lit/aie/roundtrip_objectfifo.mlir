// RUN: pto-opt %s --split-input-file | FileCheck %s
// RUN: pto-opt %s --split-input-file | pto-opt --split-input-file | FileCheck %s
// RUN: pto-opt %s --split-input-file --print-op-generic | pto-opt --split-input-file | FileCheck %s

// Objectfifo syntax beyond what the AIE lowering prints (dialects/aie.py): initial values of
// the elements, pad dimensions and value of a memtile producer, external buffers registered
// for a shim end, a delegate tile for the buffers, the re-arm binding (channels and locks) of a lowered fifo.
aie.device(npu1_1col) {
  %shim = aie.tile(0, 0)
  %mt = aie.tile(0, 1)
  %t = aie.tile(0, 2)
  aie.objectfifo @init(%mt, {%t}, 2 : i32) : !aie.objectfifo<memref<4xi32>> = [dense<[0, 1, 2, 3]> : memref<4xi32>, dense<7> : memref<4xi32>]
  aie.objectfifo @depths(%mt, {%t}, [2 : i32, 1 : i32]) : !aie.objectfifo<memref<16xi32>> = [dense<0> : memref<16xi32>, dense<1> : memref<16xi32>]
  aie.objectfifo @padded(%mt dimensionsToStream [<size = 13, stride = 1>], {%shim}, 2 : i32) {padDimensions = #aie<bd_pad_layout_array[<const_pad_before = 2, const_pad_after = 1>]>, padValue = 42 : i32} : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @ext(%shim, {%t}, 1 : i32) : !aie.objectfifo<memref<64xi32>>
  %b0 = aie.external_buffer {sym_name = "b0"} : memref<64xi32>
  aie.objectfifo.register_external_buffers @ext(%shim, {%b0}) : (memref<64xi32>)
  aie.objectfifo.allocate @init(%t)
  %l = aie.lock(%mt, 0) {init = 2 : i32}
  aie.objectfifo_rearm_binding @init_rearm channels(%mt : index) locks(%l : index) {channel_dirs = array<i32: 0>, channel_indices = array<i32: 0>, lock_inits = array<i32: 2>}
}

// CHECK: aie.device(npu1_1col) {
// CHECK: %shim = aie.tile(0, 0)
// CHECK: %mt = aie.tile(0, 1)
// CHECK: %t = aie.tile(0, 2)
// CHECK: aie.objectfifo @init(%mt, {%t}, 2 : i32) : !aie.objectfifo<memref<4xi32>> = [dense<[0, 1, 2, 3]> : memref<4xi32>, dense<7> : memref<4xi32>]
// CHECK: aie.objectfifo @depths(%mt, {%t}, [2, 1]) : !aie.objectfifo<memref<16xi32>> = [dense<0> : memref<16xi32>, dense<1> : memref<16xi32>]
// CHECK: aie.objectfifo @padded(%mt dimensionsToStream [<size = 13, stride = 1>], {%shim}, 2 : i32) {padDimensions = #aie<bd_pad_layout_array[<const_pad_before = 2, const_pad_after = 1>]>, padValue = 42 : i32} : !aie.objectfifo<memref<16xi32>>
// CHECK: aie.objectfifo @ext(%shim, {%t}, 1 : i32) : !aie.objectfifo<memref<64xi32>>
// CHECK: %b0 = aie.external_buffer {sym_name = "b0"} : memref<64xi32>
// CHECK: aie.objectfifo.register_external_buffers @ext(%shim, {%b0}) : (memref<64xi32>)
// CHECK: aie.objectfifo.allocate @init(%t)
// CHECK: %l = aie.lock(%mt, 0) {init = 2 : i32}
// CHECK: aie.objectfifo_rearm_binding @init_rearm channels(%mt : index) locks(%l : index) {channel_dirs = array<i32: 0>, channel_indices = array<i32: 0>, lock_inits = array<i32: 2>}

// -----

// What upstream accepts and so do we: a tile outside any device, a fifo whose producer is
// also its consumer (a ring of buffers in one tile), a lock value given by any index value.
%free = aie.tile(3, 4)

aie.device(npu1_1col) {
  %t = aie.tile(0, 2)
  aie.objectfifo @ring(%t, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %c = aie.core(%t) {
    %one = arith.constant 1 : i32
    %lock = arith.constant 0 : index
    aie.use_lock(%lock, Acquire, %one)
    aie.end
  }
}

// CHECK: %free = aie.tile(3, 4)
// CHECK: aie.device(npu1_1col) {
// CHECK: %t = aie.tile(0, 2)
// CHECK: aie.objectfifo @ring(%t, {%t}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
// CHECK: %c = aie.core(%t) {
// CHECK: %one = arith.constant 1 : i32
// CHECK: %lock = arith.constant 0 : index
// CHECK: aie.use_lock(%lock, Acquire, %one)
// CHECK: aie.end
