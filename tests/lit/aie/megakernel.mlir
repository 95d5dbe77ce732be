// The seeds' megakernel pipeline (examples/megakernel.mlir, seed 001 §9.3) on AIE: three
// processes become three cores, the two queues of capacity 2 two objectfifos of depth 2;
// input and output move through shim objectfifos filled and drained by the runtime sequence.
// The target (-t aie) and the pass pipeline give the same design; the emitted module parses
// back through our aie dialect in the custom and the generic form.
//
// RUN: pto-opt %S/../../../examples/megakernel.mlir -t 'aie{bind="num_tiles=4"}' | FileCheck %s
// RUN: pto-opt %S/../../../examples/megakernel.mlir -p 'csp-to-tg,tg-to-aie{device=npu1_1col bind="num_tiles=4"}' | FileCheck %s
// RUN: pto-opt %S/../../../examples/megakernel.mlir -t 'aie{bind="num_tiles=4"}' | pto-opt | FileCheck %s
// RUN: pto-opt %S/../../../examples/megakernel.mlir -p 'csp-to-tg,tg-to-aie{bind="num_tiles=4"}' --print-op-generic | pto-opt | FileCheck %s
// RUN: pto-opt %S/../../../examples/megakernel.mlir -p 'csp-to-tg,tg-to-aie{bind="num_tiles=4"}' --print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: pto-opt %S/../../../examples/megakernel.mlir -t 'aie{bind="num_tiles=4" acquire=memref}' | FileCheck %s --check-prefix=MEMREF

// CHECK:      aie.device(npu1_1col) {
// CHECK-NEXT:   %[[SHIM:.*]] = aie.tile(0, 0)
// CHECK-NEXT:   %[[LOADER:.*]] = aie.tile(0, 2)
// CHECK-NEXT:   %[[COMPUTER:.*]] = aie.tile(0, 3)
// CHECK-NEXT:   %[[STORER:.*]] = aie.tile(0, 4)
// CHECK-NEXT:   aie.objectfifo @load_to_compute(%[[LOADER]], {%[[COMPUTER]]}, 2 : i32) : !aie.objectfifo<memref<64xf32>>
// CHECK-NEXT:   aie.objectfifo @compute_to_store(%[[COMPUTER]], {%[[STORER]]}, 2 : i32) : !aie.objectfifo<memref<64xf32>>
// CHECK-NEXT:   aie.objectfifo @input_loader(%[[SHIM]], {%[[LOADER]]}, 2 : i32) : !aie.objectfifo<memref<64xf32>>
// CHECK-NEXT:   aie.objectfifo @output_storer(%[[STORER]], {%[[SHIM]]}, 2 : i32) : !aie.objectfifo<memref<64xf32>>
// CHECK-NEXT:   func.func private @load_kernel(i32, memref<64xf32>, memref<64xf32>){{( -> \(\))?}} attributes {link_with = "load_kernel.o"}
// CHECK-NEXT:   func.func private @compute_kernel(i32, memref<64xf32>, memref<64xf32>){{( -> \(\))?}} attributes {link_with = "compute_kernel.o"}
// CHECK-NEXT:   func.func private @store_kernel(i32, memref<64xf32>, memref<64xf32>){{( -> \(\))?}} attributes {link_with = "store_kernel.o"}

// The loader: for each tile, its task runs here and writes the message into the fifo.
// CHECK-NEXT:   %{{.*}} = aie.core(%[[LOADER]]) {
// CHECK-NEXT:     %c0{{.*}} = arith.constant 0 : index
// CHECK-NEXT:     %cmax{{.*}} = arith.constant 9223372036854775807 : index
// CHECK-NEXT:     %c1{{.*}} = arith.constant 1 : index
// CHECK-NEXT:     scf.for %run{{.*}} = %c0{{.*}} to %cmax{{.*}} step %c1{{.*}} {
// CHECK:          %[[N:.*]] = arith.constant 4 : index
// CHECK:          scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT:       %[[I32:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT:       %[[S0:.*]] = aie.objectfifo.acquire @input_loader(Consume, 1) : !aie.objectfifosubview<memref<64xf32>>
// CHECK-NEXT:       %[[SRC:.*]] = aie.objectfifo.subview.access %[[S0]][0] : !aie.objectfifosubview<memref<64xf32>> -> memref<64xf32>
// CHECK-NEXT:       %[[S1:.*]] = aie.objectfifo.acquire @load_to_compute(Produce, 1) : !aie.objectfifosubview<memref<64xf32>>
// CHECK-NEXT:       %[[TILE:.*]] = aie.objectfifo.subview.access %[[S1]][0] : !aie.objectfifosubview<memref<64xf32>> -> memref<64xf32>
// CHECK-NEXT:       func.call @load_kernel(%[[I32]], %[[SRC]], %[[TILE]]) : (i32, memref<64xf32>, memref<64xf32>) -> ()
// CHECK-NEXT:       aie.objectfifo.release @input_loader(Consume, 1)
// CHECK-NEXT:       aie.objectfifo.release @load_to_compute(Produce, 1)
// CHECK-NEXT:     }
// CHECK-NEXT:     }
// CHECK-NEXT:     aie.end
// CHECK-NEXT:   }

// The computer consumes a message, computes its tile coordinate (the message number), runs
// the task of the message it sends on that element, and releases it.
// CHECK-NEXT:   %{{.*}} = aie.core(%[[COMPUTER]]) {
// CHECK-NEXT:     %c0{{.*}} = arith.constant 0 : index
// CHECK-NEXT:     %cmax{{.*}} = arith.constant 9223372036854775807 : index
// CHECK-NEXT:     %c1{{.*}} = arith.constant 1 : index
// CHECK-NEXT:     scf.for %run{{.*}} = %c0{{.*}} to %cmax{{.*}} step %c1{{.*}} {
// CHECK:          scf.for %[[M:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:       %[[R0:.*]] = aie.objectfifo.acquire @load_to_compute(Consume, 1)
// CHECK-NEXT:       %[[IN:.*]] = aie.objectfifo.subview.access %[[R0]][0]
// CHECK-NEXT:       %[[K:.*]] = arith.index_cast %[[M]] : index to i32
// CHECK-NEXT:       %[[R1:.*]] = aie.objectfifo.acquire @compute_to_store(Produce, 1)
// CHECK-NEXT:       %[[OUT:.*]] = aie.objectfifo.subview.access %[[R1]][0]
// CHECK-NEXT:       func.call @compute_kernel(%[[K]], %[[IN]], %[[OUT]])
// CHECK-NEXT:       aie.objectfifo.release @compute_to_store(Produce, 1)
// CHECK-NEXT:       aie.objectfifo.release @load_to_compute(Consume, 1)
// CHECK-NEXT:     }
// CHECK-NEXT:     }
// CHECK-NEXT:     aie.end
// CHECK-NEXT:   }

// The storer writes each result into the output fifo.
// CHECK-NEXT:   %{{.*}} = aie.core(%[[STORER]]) {
// CHECK-NEXT:     %c0{{.*}} = arith.constant 0 : index
// CHECK-NEXT:     %cmax{{.*}} = arith.constant 9223372036854775807 : index
// CHECK-NEXT:     %c1{{.*}} = arith.constant 1 : index
// CHECK-NEXT:     scf.for %run{{.*}} = %c0{{.*}} to %cmax{{.*}} step %c1{{.*}} {
// CHECK:            aie.objectfifo.acquire @compute_to_store(Consume, 1)
// CHECK:            aie.objectfifo.acquire @output_storer(Produce, 1)
// CHECK:            func.call @store_kernel(
// CHECK:            aie.objectfifo.release @output_storer(Produce, 1)
// CHECK-NEXT:       aie.objectfifo.release @compute_to_store(Consume, 1)

// The runtime sequence: the 4 tiles of 64 (the bound num_tiles) out, then in, then wait.
// CHECK:        aie.runtime_sequence(%[[INPUT:.*]]: memref<4x64xf32>, %[[OUTPUT:.*]]: memref<4x64xf32>) {
// CHECK-NEXT:     aiex.npu.dma_memcpy_nd(%[[OUTPUT]][0, 0, 0, 0][1, 1, 1, 256][0, 0, 0, 1]) {id = 0 : i64, issue_token = true, metadata = @output_storer} : memref<4x64xf32>
// CHECK-NEXT:     aiex.npu.dma_memcpy_nd(%[[INPUT]][0, 0, 0, 0][1, 1, 1, 256][0, 0, 0, 1]) {id = 1 : i64, metadata = @input_loader} : memref<4x64xf32>
// CHECK-NEXT:     aiex.npu.dma_wait {symbol = @output_storer}
// CHECK-NEXT:   }
// CHECK-NEXT: }

// GENERIC: "aie.device"() <{device = 5 : i32}>
// GENERIC: "aie.objectfifo"(%{{.*}}, %{{.*}}) <{sym_name = "load_to_compute", elemNumber = 2 : i32, elemType = !aie.objectfifo<memref<64xf32>>

// The upcoming upstream form: acquire returns the element, no subview.access.
// MEMREF:     %[[E:.*]] = aie.objectfifo.acquire @input_loader(Consume, 1) : memref<64xf32>
// MEMREF-NOT: subview
