// RUN: pto-opt %s --split-input-file | FileCheck %s
// RUN: pto-opt %s --split-input-file | pto-opt --split-input-file | FileCheck %s
// RUN: pto-opt %s --split-input-file --print-op-generic | pto-opt --split-input-file | FileCheck %s
// RUN: pto-opt %s --split-input-file --print-op-generic | FileCheck %s --check-prefix=GENERIC

// Conformance examples of the aie / aiex subset (dialects/aie.py), written in mlir-aie's
// upstream syntax: every op and every optional clause, printed back unchanged.

// A shim -> memtile -> core design: objectfifos, a one-to-one link, a core with acquire /
// subview.access / release around a kernel call, the kernel declaration with link_with, and
// the runtime sequence (output DMA, input DMA, wait).
module {
  aie.device(npu1_1col) {
    %shim_noc_tile_0_0 = aie.tile(0, 0)
    %mem_tile_0_1 = aie.tile(0, 1)
    %tile_0_2 = aie.tile(0, 2)
    aie.objectfifo @in(%shim_noc_tile_0_0, {%mem_tile_0_1}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
    aie.objectfifo @in_l1(%mem_tile_0_1, {%tile_0_2}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
    aie.objectfifo.link [@in] -> [@in_l1]([] [])
    aie.objectfifo @out(%tile_0_2, {%shim_noc_tile_0_0}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
    func.func private @scale(memref<64xi32>, memref<64xi32>, i32) attributes {link_with = "scale.o"}
    %core_0_2 = aie.core(%tile_0_2) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c3_i32 = arith.constant 3 : i32
      scf.for %i = %c0 to %c4 step %c1 {
        %s = aie.objectfifo.acquire @in_l1(Consume, 1) : !aie.objectfifosubview<memref<64xi32>>
        %a = aie.objectfifo.subview.access %s[0] : !aie.objectfifosubview<memref<64xi32>> -> memref<64xi32>
        %t = aie.objectfifo.acquire @out(Produce, 1) : !aie.objectfifosubview<memref<64xi32>>
        %b = aie.objectfifo.subview.access %t[0] : !aie.objectfifosubview<memref<64xi32>> -> memref<64xi32>
        func.call @scale(%a, %b, %c3_i32) : (memref<64xi32>, memref<64xi32>, i32) -> ()
        aie.objectfifo.release @in_l1(Consume, 1)
        aie.objectfifo.release @out(Produce, 1)
      }
      aie.end
    }
    aie.runtime_sequence(%x: memref<256xi32>, %y: memref<256xi32>) {
      aiex.npu.dma_memcpy_nd(%y[0, 0, 0, 0][1, 1, 1, 256][0, 0, 0, 1]) {id = 1 : i64, issue_token = true, metadata = @out} : memref<256xi32>
      aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 0][1, 1, 1, 256][0, 0, 0, 1]) {id = 0 : i64, metadata = @in} : memref<256xi32>
      aiex.npu.dma_wait {symbol = @out}
    }
  }
}

// CHECK-LABEL: aie.device(npu1_1col) {
// CHECK-NEXT:    %[[SHIM:.*]] = aie.tile(0, 0)
// CHECK-NEXT:    %[[MEM:.*]] = aie.tile(0, 1)
// CHECK-NEXT:    %[[T02:.*]] = aie.tile(0, 2)
// CHECK-NEXT:    aie.objectfifo @in(%[[SHIM]], {%[[MEM]]}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
// CHECK-NEXT:    aie.objectfifo @in_l1(%[[MEM]], {%[[T02]]}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
// CHECK-NEXT:    aie.objectfifo.link [@in] -> [@in_l1]([] [])
// CHECK-NEXT:    aie.objectfifo @out(%[[T02]], {%[[SHIM]]}, 2 : i32) : !aie.objectfifo<memref<64xi32>>
// CHECK-NEXT:    func.func private @scale(memref<64xi32>, memref<64xi32>, i32){{( -> \(\))?}} attributes {link_with = "scale.o"}
// CHECK-NEXT:    %{{.*}} = aie.core(%[[T02]]) {
// CHECK:           scf.for
// CHECK-NEXT:        %[[S:.*]] = aie.objectfifo.acquire @in_l1(Consume, 1) : !aie.objectfifosubview<memref<64xi32>>
// CHECK-NEXT:        %[[A:.*]] = aie.objectfifo.subview.access %[[S]][0] : !aie.objectfifosubview<memref<64xi32>> -> memref<64xi32>
// CHECK-NEXT:        %[[T:.*]] = aie.objectfifo.acquire @out(Produce, 1) : !aie.objectfifosubview<memref<64xi32>>
// CHECK-NEXT:        %[[B:.*]] = aie.objectfifo.subview.access %[[T]][0] : !aie.objectfifosubview<memref<64xi32>> -> memref<64xi32>
// CHECK-NEXT:        func.call @scale(%[[A]], %[[B]], %{{.*}}) : (memref<64xi32>, memref<64xi32>, i32) -> ()
// CHECK-NEXT:        aie.objectfifo.release @in_l1(Consume, 1)
// CHECK-NEXT:        aie.objectfifo.release @out(Produce, 1)
// CHECK-NEXT:      }
// CHECK-NEXT:      aie.end
// CHECK-NEXT:    }
// CHECK-NEXT:    aie.runtime_sequence(%[[X:.*]]: memref<256xi32>, %[[Y:.*]]: memref<256xi32>) {
// CHECK-NEXT:      aiex.npu.dma_memcpy_nd(%[[Y]][0, 0, 0, 0][1, 1, 1, 256][0, 0, 0, 1]) {id = 1 : i64, issue_token = true, metadata = @out} : memref<256xi32>
// CHECK-NEXT:      aiex.npu.dma_memcpy_nd(%[[X]][0, 0, 0, 0][1, 1, 1, 256][0, 0, 0, 1]) {id = 0 : i64, metadata = @in} : memref<256xi32>
// CHECK-NEXT:      aiex.npu.dma_wait {symbol = @out}
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// Enums are i32 with upstream's numbering (npu1_1col = 5, Consume = 1, Produce = 0); the
// implicit aie.end of the device is there in generic form.
// GENERIC:      "aie.device"() <{device = 5 : i32}> ({
// GENERIC:        "aie.objectfifo"(%{{.*}}, %{{.*}}) <{sym_name = "in", elemNumber = 2 : i32, elemType = !aie.objectfifo<memref<64xi32>>, dimensionsToStream = [], dimensionsFromStreamPerConsumer = [[]]}> : (index, index) -> ()
// GENERIC:        "aie.objectfifo.link"() <{fifoIns = [@in], fifoOuts = [@in_l1], src_offsets = [], dst_offsets = []}> : () -> ()
// GENERIC:        "aie.objectfifo.acquire"() <{port = 1 : i32, objFifo_name = @in_l1, size = 1 : i32}> : () -> !aie.objectfifosubview<memref<64xi32>>
// GENERIC:        "aie.objectfifo.subview.access"(%{{.*}}) <{index = 0 : i32}>
// GENERIC:        "aie.objectfifo.release"() <{port = 0 : i32, objFifo_name = @out, size = 1 : i32}> : () -> ()
// GENERIC:        "aie.end"() : () -> ()
// GENERIC:        "aie.runtime_sequence"() ({
// GENERIC:          "aiex.npu.dma_memcpy_nd"(%{{.*}}) <{static_offsets = array<i64: 0, 0, 0, 0>, static_sizes = array<i64: 1, 1, 1, 256>, static_strides = array<i64: 0, 0, 0, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>, id = 1 : i64, issue_token = true, metadata = @out}> : (memref<256xi32>) -> ()
// GENERIC:          "aiex.npu.dma_wait"() <{symbol = @out}> : () -> ()
// GENERIC:        "aie.end"() : () -> ()

// -----

// Distribute and join through a memtile (offsets in elements), broadcast (several
// consumers), per-tile depths, data layout transformations on both ends, a named device.
aie.device(npu2) @dp {
  %t00 = aie.tile(0, 0)
  %t01 = aie.tile(0, 1)
  %t02 = aie.tile(0, 2)
  %t03 = aie.tile(0, 3)
  %t12 = aie.tile(1, 2)
  aie.objectfifo @A(%t00, {%t01}, 2 : i32) : !aie.objectfifo<memref<2048xbf16>>
  aie.objectfifo @A0(%t01 dimensionsToStream [<size = 16, stride = 64>, <size = 64, stride = 1>], {%t02, %t03 dimensionsFromStream [<size = 32, stride = 1>]}, [2, 2, 1]) : !aie.objectfifo<memref<1024xbf16>>
  aie.objectfifo @A1(%t01, {%t12}, 2 : i32) : !aie.objectfifo<memref<1024xbf16>>
  aie.objectfifo.link [@A] -> [@A0, @A1]([] [0, 1024])
  aie.objectfifo @C0(%t02, {%t01}, 2 : i32) : !aie.objectfifo<memref<512xf32>>
  aie.objectfifo @C1(%t12, {%t01}, 2 : i32) : !aie.objectfifo<memref<512xf32>>
  aie.objectfifo @C(%t01, {%t00}, 2 : i32) {via_DMA = true} : !aie.objectfifo<memref<1024xf32>>
  aie.objectfifo.link [@C0, @C1] -> [@C]([0, 512] [])
}

// CHECK-LABEL: aie.device(npu2) @dp {
// CHECK:         aie.objectfifo @A0(%{{.*}} dimensionsToStream [<size = 16, stride = 64>, <size = 64, stride = 1>], {%{{.*}}, %{{.*}} dimensionsFromStream [<size = 32, stride = 1>]}, [2, 2, 1]) : !aie.objectfifo<memref<1024xbf16>>
// CHECK:         aie.objectfifo.link [@A] -> [@A0, @A1]([] [0, 1024])
// CHECK:         aie.objectfifo @C(%{{.*}}, {%{{.*}}}, 2 : i32) {via_DMA = true} : !aie.objectfifo<memref<1024xf32>>
// CHECK:         aie.objectfifo.link [@C0, @C1] -> [@C]([0, 512] [])
// CHECK-NEXT:  }

// GENERIC: "aie.device"() <{device = 8 : i32, sym_name = "dp"}>
// GENERIC: elemNumber = [2 : i32, 2 : i32, 1 : i32], elemType = !aie.objectfifo<memref<1024xbf16>>, dimensionsToStream = [#aie.bd_dim_layout<size = 16, stride = 64>, #aie.bd_dim_layout<size = 64, stride = 1>], dimensionsFromStreamPerConsumer = [[], [#aie.bd_dim_layout<size = 32, stride = 1>]]
// GENERIC: "aie.objectfifo.link"() <{fifoIns = [@A], fifoOuts = [@A0, @A1], src_offsets = [], dst_offsets = [0 : i64, 1024 : i64]}>

// -----

// The lower-level ops mlir-aie's objectfifo pass produces: buffers (with an initial value),
// locks, use_lock with its i32 SSA value, flows, shim DMA allocations; a named runtime
// sequence with SSA DMA offsets; the upcoming acquire that returns the memref directly.
aie.device(npu1_2col) {
  %t00 = aie.tile(0, 0)
  %t10 = aie.tile(1, 0)
  %t02 = aie.tile(0, 2)
  %t12 = aie.tile(1, 2)
  %buf = aie.buffer(%t02) {sym_name = "buf"} : memref<4xi32> = dense<[1, 2, 3, 4]>
  %prod_lock = aie.lock(%t02, 0) {init = 1 : i32, sym_name = "prod_lock"}
  %cons_lock = aie.lock(%t02)
  aie.flow(%t00, DMA : 0, %t02, DMA : 1)
  aie.flow(%t02, Core : 0, %t12, North : 3)
  aie.shim_dma_allocation @x(%t00, MM2S, 0)
  aie.shim_dma_allocation @y(%t10, S2MM, 1)
  aie.objectfifo @f(%t02, {%t12}, 1 : i32) : !aie.objectfifo<memref<8xf32>>
  %core_0_2 = aie.core(%t02) {
    %c1_i32 = arith.constant 1 : i32
    aie.use_lock(%prod_lock, AcquireGreaterEqual, %c1_i32)
    aie.use_lock(%cons_lock, Release, %c1_i32, Blocking)
    %e = aie.objectfifo.acquire @f(Produce, 1) : memref<8xf32>
    aie.objectfifo.release @f(Produce, 1)
    aie.end
  } {stack_size = 2048 : i32}
  %core_1_2 = aie.core(%t12) {
    %s = aie.objectfifo.acquire @f(Consume, 1) : !aie.objectfifosubview<memref<8xf32>>
    %e = aie.objectfifo.subview.access %s[0] : !aie.objectfifosubview<memref<8xf32>> -> memref<8xf32>
    aie.objectfifo.release @f(Consume, 1)
    aie.end
  }
  aie.runtime_sequence @seq(%a: memref<64xi32>, %n: i64) {
    %c0 = arith.constant 0 : i64
    aiex.npu.dma_memcpy_nd(%a[0, 0, 0, %c0][1, 1, 1, %n][0, 0, 0, 1]) {id = 2 : i64, metadata = @x} : memref<64xi32>
    aiex.npu.dma_wait {symbol = @y}
  }
}

// CHECK-LABEL: aie.device(npu1_2col) {
// CHECK:         %{{.*}} = aie.buffer(%{{.*}}) {sym_name = "buf"} : memref<4xi32> = dense<[1, 2, 3, 4]>
// CHECK-NEXT:    %[[PL:.*]] = aie.lock(%{{.*}}, 0) {init = 1 : i32, sym_name = "prod_lock"}
// CHECK-NEXT:    %[[CL:.*]] = aie.lock(%{{.*}})
// CHECK-NEXT:    aie.flow(%{{.*}}, DMA : 0, %{{.*}}, DMA : 1)
// CHECK-NEXT:    aie.flow(%{{.*}}, Core : 0, %{{.*}}, North : 3)
// CHECK-NEXT:    aie.shim_dma_allocation @x(%{{.*}}, MM2S, 0)
// CHECK-NEXT:    aie.shim_dma_allocation @y(%{{.*}}, S2MM, 1)
// CHECK:         aie.use_lock(%[[PL]], AcquireGreaterEqual, %{{.*}})
// CHECK-NEXT:    aie.use_lock(%[[CL]], Release, %{{.*}}, Blocking)
// CHECK-NEXT:    %{{.*}} = aie.objectfifo.acquire @f(Produce, 1) : memref<8xf32>
// CHECK:         } {stack_size = 2048 : i32}
// CHECK:         aie.runtime_sequence @seq(%[[A:.*]]: memref<64xi32>, %[[N:.*]]: i64) {
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : i64
// CHECK-NEXT:      aiex.npu.dma_memcpy_nd(%[[A]][0, 0, 0, %[[C0]]][1, 1, 1, %[[N]]][0, 0, 0, 1]) {id = 2 : i64, metadata = @x} : memref<64xi32>

// GENERIC: "aie.flow"(%{{.*}}, %{{.*}}) <{source_bundle = 1 : i32, source_channel = 0 : i32, dest_bundle = 1 : i32, dest_channel = 1 : i32}> : (index, index) -> ()
// GENERIC: "aie.shim_dma_allocation"(%{{.*}}) <{sym_name = "x", channel_dir = 1 : i32, channel_index = 0 : i64}> : (index) -> ()
// GENERIC: "aie.use_lock"(%{{.*}}, %{{.*}}) <{action = 2 : i32}> : (index, i32) -> ()
// GENERIC: "aie.use_lock"(%{{.*}}, %{{.*}}) <{action = 1 : i32, blocking = 1 : i32}> : (index, i32) -> ()
// GENERIC: "aiex.npu.dma_memcpy_nd"(%{{.*}}, %{{.*}}, %{{.*}}) <{static_offsets = array<i64: 0, 0, 0, -9223372036854775808>, static_sizes = array<i64: 1, 1, 1, -9223372036854775808>, static_strides = array<i64: 0, 0, 0, 1>, operandSegmentSizes = array<i32: 1, 1, 1, 0>, id = 2 : i64, metadata = @x}>
