// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Verifier rules of the aie / aiex dialects (dialects/aie.py), one chunk each.
// Each chunk's checks start at the separator line pto-opt prints between chunks, so a chunk
// that gives no error fails the test even where its message repeats.

// Tile coordinates lie inside the device: npu1_1col has one column ...
aie.device(npu1_1col) {
  %t = aie.tile(1, 2)
}

// CHECK: error: 'aie.tile' op column index (1) must be less than the number of columns in the device (1, npu1_1col)

// -----
// CHECK: //{{ }}-----

// ... and six rows (shim, memtile, four core rows).
aie.device(npu2) {
  %t = aie.tile(0, 6)
}

// CHECK: error: 'aie.tile' op row index (6) must be less than the number of rows in the device (6, npu2)

// -----
// CHECK: //{{ }}-----

// Cores only on compute rows: not on the shim row ...
aie.device(npu1) {
  %t = aie.tile(2, 0)
  %c = aie.core(%t) {
    aie.end
  }
}

// CHECK: error: 'aie.core' op aie.core on tile (2, 0), a shim tile: cores stand on compute rows 2..5 of npu1

// -----
// CHECK: //{{ }}-----

// ... nor on the memtile row.
aie.device(npu1) {
  %t = aie.tile(0, 1)
  %c = aie.core(%t) {
    aie.end
  }
}

// CHECK: error: 'aie.core' op aie.core on tile (0, 1), a memtile tile: cores stand on compute rows 2..5 of npu1

// -----
// CHECK: //{{ }}-----

// One core per tile.
aie.device(npu1) {
  %t = aie.tile(0, 2)
  %c1 = aie.core(%t) {
    aie.end
  }
  %c2 = aie.core(%t) {
    aie.end
  }
}

// CHECK: error: 'aie.device' op tile (0, 2) already has a core; each compute tile can host only one core

// -----
// CHECK: //{{ }}-----

// A core's blocks end with a terminator (aie.end is explicit).
aie.device(npu1) {
  %t = aie.tile(0, 2)
  %c = aie.core(%t) {
    %x = arith.constant 0 : index
  }
}

// CHECK: error: 'arith.constant' op Operation arith.constant terminates block in single-block region but is not a terminator

// -----
// CHECK: //{{ }}-----

aie.device(npu1) {
  %t = aie.tile(0, 2)
  %u = aie.tile(0, 3)
  aie.objectfifo @of(%t, {%u, %u}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
}

// CHECK: error: 'aie.objectfifo' op objectfifo @of: consumer tile (0, 3) listed twice

// -----
// CHECK: //{{ }}-----

// Per-tile depths: one for the producer and one per consumer.
aie.device(npu1) {
  %t = aie.tile(0, 2)
  %u = aie.tile(0, 3)
  %v = aie.tile(0, 4)
  aie.objectfifo @of(%t, {%u, %v}, [2, 2]) : !aie.objectfifo<memref<16xi32>>
}

// CHECK: error: 'aie.objectfifo' op objectfifo @of does not have enough depths specified for producer and for each consumer: 2 given, 3 needed

// -----
// CHECK: //{{ }}-----

aie.device(npu1) {
  %t = aie.tile(0, 2)
  %u = aie.tile(0, 3)
  aie.objectfifo @of(%t, {%u}, 0 : i32) : !aie.objectfifo<memref<16xi32>>
}

// CHECK: error: 'aie.objectfifo' op objectfifo @of: depth must be >= 1, got [0, 0]

// -----
// CHECK: //{{ }}-----

aie.device(npu1) {
  %t = aie.tile(0, 2)
  %u = aie.tile(0, 3)
  aie.objectfifo @of(%t, {%u}, 2 : i32) : !aie.objectfifo<memref<?xi32>>
}

// CHECK: error: 'aie.objectfifo' op objectfifo @of: element type must be a static shaped memref, got memref<?xi32>

// -----
// CHECK: //{{ }}-----

// The shim DMA's layout is set by the runtime sequence, not by dimensionsToStream.
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %u = aie.tile(0, 2)
  aie.objectfifo @of(%s dimensionsToStream [<size = 4, stride = 1>], {%u}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
}

// CHECK: error: 'aie.objectfifo' op `dimensionsToStream` data layout transformations are not supported on shim tile producers

// -----
// CHECK: //{{ }}-----

// Links: no join and distribute at once ...
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %m = aie.tile(0, 1)
  %a = aie.tile(0, 2)
  %b = aie.tile(0, 3)
  aie.objectfifo @i0(%s, {%m}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @i1(%s, {%m}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @o0(%m, {%a}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @o1(%m, {%b}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo.link [@i0, @i1] -> [@o0, @o1]([0, 16] [0, 16])
}

// CHECK: error: 'aie.objectfifo.link' op aie.objectfifo.link does not support 'join' and 'distribute' at the same time

// -----
// CHECK: //{{ }}-----

// ... a link point shared by every fifo ...
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %m = aie.tile(0, 1)
  %a = aie.tile(0, 2)
  aie.objectfifo @in(%s, {%a}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @out(%m, {%a}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo.link [@in] -> [@out]([] [])
}

// CHECK: error: 'aie.objectfifo.link' op aie.objectfifo.link must have a link point: input @in is not consumed on tile (0, 1)

// -----
// CHECK: //{{ }}-----

// ... distribute and join only through a memtile ...
aie.device(npu1) {
  %a = aie.tile(0, 2)
  %b = aie.tile(0, 3)
  %c = aie.tile(0, 4)
  %d = aie.tile(0, 5)
  aie.objectfifo @in(%a, {%b}, 2 : i32) : !aie.objectfifo<memref<32xi32>>
  aie.objectfifo @o0(%b, {%c}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @o1(%b, {%d}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo.link [@in] -> [@o0, @o1]([] [0, 16])
}

// CHECK: error: 'aie.objectfifo.link' op aie.objectfifo.link join and distribute are unavailable on compute or shim tiles (link point (0, 3))

// -----
// CHECK: //{{ }}-----

// ... one offset per part ...
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %m = aie.tile(0, 1)
  %a = aie.tile(0, 2)
  %b = aie.tile(0, 3)
  aie.objectfifo @in(%s, {%m}, 2 : i32) : !aie.objectfifo<memref<32xi32>>
  aie.objectfifo @o0(%m, {%a}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @o1(%m, {%b}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo.link [@in] -> [@o0, @o1]([] [0])
}

// CHECK: error: 'aie.objectfifo.link' op number of provided dst offsets must be equal to the number of output objectFifos (1 offsets, 2 objectFifos)

// -----
// CHECK: //{{ }}-----

// ... on the side that is split.
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %m = aie.tile(0, 1)
  %a = aie.tile(0, 2)
  %b = aie.tile(0, 3)
  aie.objectfifo @i0(%a, {%m}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @i1(%b, {%m}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.objectfifo @out(%m, {%s}, 2 : i32) : !aie.objectfifo<memref<32xi32>>
  aie.objectfifo.link [@i0, @i1] -> [@out]([0, 16] [0])
}

// CHECK: error: 'aie.objectfifo.link' op dst offsets should be empty for join

// -----
// CHECK: //{{ }}-----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %m = aie.tile(0, 1)
  aie.objectfifo @in(%s, {%m}, 2 : i32) : !aie.objectfifo<memref<32xi32>>
  aie.objectfifo.link [@in] -> [@nowhere]([] [])
}

// CHECK: error: 'aie.objectfifo.link' op @nowhere is not an aie.objectfifo of the enclosing aie.device

// -----
// CHECK: //{{ }}-----

// Acquire and release stand in a core on the fifo's producer (Produce) or consumer
// (Consume) tile, with the fifo's element type.
aie.device(npu1) {
  %a = aie.tile(0, 2)
  %b = aie.tile(0, 3)
  aie.objectfifo @of(%a, {%b}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.runtime_sequence() {
    %s = aie.objectfifo.acquire @of(Consume, 1) : !aie.objectfifosubview<memref<16xi32>>
  }
}

// CHECK: error: 'aie.objectfifo.acquire' op aie.objectfifo.acquire must be called from inside an aie.core

// -----
// CHECK: //{{ }}-----

aie.device(npu1) {
  %a = aie.tile(0, 2)
  %b = aie.tile(0, 3)
  aie.objectfifo @of(%a, {%b}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %c = aie.core(%b) {
    %s = aie.objectfifo.acquire @of(Produce, 1) : !aie.objectfifosubview<memref<16xi32>>
    aie.end
  }
}

// CHECK: error: 'aie.objectfifo.acquire' op producer port of objectfifo @of accessed by a core running on a non-producer tile

// -----
// CHECK: //{{ }}-----

aie.device(npu1) {
  %a = aie.tile(0, 2)
  %b = aie.tile(0, 3)
  aie.objectfifo @of(%a, {%b}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %c = aie.core(%a) {
    aie.objectfifo.release @of(Consume, 1)
    aie.end
  }
}

// CHECK: error: 'aie.objectfifo.release' op consumer port of objectfifo @of accessed by a core running on a non-consumer tile

// -----
// CHECK: //{{ }}-----

aie.device(npu1) {
  %a = aie.tile(0, 2)
  %b = aie.tile(0, 3)
  aie.objectfifo @of(%a, {%b}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %c = aie.core(%b) {
    %e = aie.objectfifo.acquire @of(Consume, 1) : memref<8xi32>
    aie.end
  }
}

// CHECK: error: 'aie.objectfifo.acquire' op objectfifo @of has elements of type memref<16xi32>, but the acquire gives memref<8xi32>

// -----
// CHECK: //{{ }}-----

aie.device(npu1) {
  %a = aie.tile(0, 2)
  %b = aie.tile(0, 3)
  %c = aie.core(%b) {
    %s = aie.objectfifo.acquire @missing(Consume, 1) : !aie.objectfifosubview<memref<16xi32>>
    aie.end
  }
}

// CHECK: error: 'aie.objectfifo.acquire' op @missing is not an aie.objectfifo of the enclosing aie.device

// -----
// CHECK: //{{ }}-----

// subview.access only on an acquire's result, directly ...
aie.device(npu1) {
  %a = aie.tile(0, 2)
  %b = aie.tile(0, 3)
  aie.objectfifo @of(%a, {%b}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %c = aie.core(%b) {
    %true = arith.constant true
    %s = aie.objectfifo.acquire @of(Consume, 1) : !aie.objectfifosubview<memref<16xi32>>
    %t = scf.if %true -> (!aie.objectfifosubview<memref<16xi32>>) {
      scf.yield %s : !aie.objectfifosubview<memref<16xi32>>
    } else {
      scf.yield %s : !aie.objectfifosubview<memref<16xi32>>
    }
    %e = aie.objectfifo.subview.access %t[0] : !aie.objectfifosubview<memref<16xi32>> -> memref<16xi32>
    aie.end
  }
}

// CHECK: error: 'aie.objectfifo.subview.access' op subview operand must be the direct result of an aie.objectfifo.acquire; flowing the subview through block arguments or region results is not supported

// -----
// CHECK: //{{ }}-----

// ... and within the acquired elements.
aie.device(npu1) {
  %a = aie.tile(0, 2)
  %b = aie.tile(0, 3)
  aie.objectfifo @of(%a, {%b}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %c = aie.core(%b) {
    %s = aie.objectfifo.acquire @of(Consume, 1) : !aie.objectfifosubview<memref<16xi32>>
    %e = aie.objectfifo.subview.access %s[1] : !aie.objectfifosubview<memref<16xi32>> -> memref<16xi32>
    aie.end
  }
}

// CHECK: error: 'aie.objectfifo.subview.access' op accessed element 1, but the acquire obtained 1 (index out of bounds)

// -----
// CHECK: //{{ }}-----

// Shim tiles have no memory.
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %b = aie.buffer(%s) : memref<16xi32>
}

// CHECK: error: 'aie.buffer' op aie.buffer on shim tile (0, 0): shim tiles have no memory

// -----
// CHECK: //{{ }}-----

aie.device(npu1) {
  %t = aie.tile(0, 2)
  aie.shim_dma_allocation @x(%t, MM2S, 0)
}

// CHECK: error: 'aie.shim_dma_allocation' op tile must be a shim tile, but got tile(0, 2)

// -----
// CHECK: //{{ }}-----

// DMAs: in a runtime sequence, on a fifo or an allocation of the device, sizes >= 1.
aie.device(npu1) {
  %s = aie.tile(0, 0)
  %a = aie.tile(0, 2)
  aie.objectfifo @in(%s, {%a}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.runtime_sequence(%x: memref<16xi32>) {
    aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 0][1, 1, 1, 16][0, 0, 0, 1]) {id = 0 : i64, metadata = @nowhere} : memref<16xi32>
  }
}

// CHECK: error: 'aiex.npu.dma_memcpy_nd' op metadata @nowhere must name an aie.objectfifo or an aie.shim_dma_allocation of the enclosing aie.device

// -----
// CHECK: //{{ }}-----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %a = aie.tile(0, 2)
  aie.objectfifo @in(%s, {%a}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  aie.runtime_sequence(%x: memref<16xi32>) {
    aiex.npu.dma_memcpy_nd(%x[0, 0, 0, 0][1, 1, 0, 16][0, 0, 0, 1]) {id = 0 : i64, metadata = @in} : memref<16xi32>
  }
}

// CHECK: error: 'aiex.npu.dma_memcpy_nd' op aiex.npu.dma_memcpy_nd sizes must be >= 1, got [1, 1, 0, 16]

// -----
// CHECK: //{{ }}-----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  %a = aie.tile(0, 2)
  aie.objectfifo @in(%s, {%a}, 2 : i32) : !aie.objectfifo<memref<16xi32>>
  %c = aie.core(%a) {
    aiex.npu.dma_wait {symbol = @in}
    aie.end
  }
}

// CHECK: error: 'aiex.npu.dma_wait' op aiex.npu.dma_wait must be inside an aie.runtime_sequence

// -----
// CHECK: //{{ }}-----

aie.device(npu1) {
  %s = aie.tile(0, 0)
  aie.runtime_sequence() {
    aiex.npu.dma_wait {symbol = @out}
  }
}

// CHECK: error: 'aiex.npu.dma_wait' op symbol @out must name an aie.objectfifo or an aie.shim_dma_allocation of the enclosing aie.device
