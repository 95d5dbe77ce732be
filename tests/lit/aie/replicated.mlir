// A replicated worker (Inputs/farm.mlir: a loader, a worker with replicas(2), a storer) on
// AIE: the worker becomes two cores; the queue into it becomes one objectfifo per replica,
// dealt round-robin (the loader's loop is unrolled by 2: tile 2k to worker 0, 2k+1 to
// worker 1), and the storer joins the results in the same order. Capacity 0 (a rendezvous)
// becomes depth 1. A kernel's `impls = {aie = ...}` names its object file.
//
// RUN: pto-opt %S/Inputs/farm.mlir -t 'aie{bind="n=8"}' | FileCheck %s
// RUN: pto-opt %S/Inputs/farm.mlir -t 'aie{bind="n=8"}' | pto-opt | FileCheck %s
// RUN: pto-opt %S/Inputs/farm.mlir -p 'csp-to-tg,tg-to-aie{bind="n=8"}' --print-op-generic | pto-opt | FileCheck %s

// CHECK:      %[[SHIM:.*]] = aie.tile(0, 0)
// CHECK-NEXT: %[[LOADER:.*]] = aie.tile(0, 2)
// CHECK-NEXT: %[[W0:.*]] = aie.tile(0, 3)
// CHECK-NEXT: %[[W1:.*]] = aie.tile(0, 4)
// CHECK-NEXT: %[[STORER:.*]] = aie.tile(0, 5)
// CHECK-NEXT: aie.objectfifo @to_workers_0(%[[LOADER]], {%[[W0]]}, 2 : i32) : !aie.objectfifo<memref<128xi32>>
// CHECK-NEXT: aie.objectfifo @to_workers_1(%[[LOADER]], {%[[W1]]}, 2 : i32) : !aie.objectfifo<memref<128xi32>>
// CHECK-NEXT: aie.objectfifo @to_storer_0(%[[W0]], {%[[STORER]]}, 1 : i32) : !aie.objectfifo<memref<128xi32>>
// CHECK-NEXT: aie.objectfifo @to_storer_1(%[[W1]], {%[[STORER]]}, 1 : i32) : !aie.objectfifo<memref<128xi32>>
// CHECK-NEXT: aie.objectfifo @x_loader(%[[SHIM]], {%[[LOADER]]}, 2 : i32)
// CHECK-NEXT: aie.objectfifo @y_storer(%[[STORER]], {%[[SHIM]]}, 2 : i32)
// CHECK:      func.func private @work(i32, memref<128xi32>, memref<128xi32>){{( -> \(\))?}} attributes {link_with = "work_aie2.o"}

// The loader: 4 iterations of 2 lanes.
// CHECK:      aie.core(%[[LOADER]]) {
// CHECK-NEXT:   %c0{{.*}} = arith.constant 0 : index
// CHECK-NEXT:   %cmax{{.*}} = arith.constant 9223372036854775807 : index
// CHECK-NEXT:   %c1{{.*}} = arith.constant 1 : index
// CHECK-NEXT:   scf.for %run{{.*}} = %c0{{.*}} to %cmax{{.*}} step %c1{{.*}} {
// CHECK:        %[[FOUR:.*]] = arith.constant 4 : index
// CHECK:        scf.for %{{.*}} = %{{.*}} to %[[FOUR]] step
// CHECK:          aie.objectfifo.acquire @to_workers_0(Produce, 1)
// CHECK:          func.call @load(
// CHECK:          aie.objectfifo.release @to_workers_0(Produce, 1)
// CHECK:          aie.objectfifo.acquire @to_workers_1(Produce, 1)
// CHECK:          func.call @load(
// CHECK:          aie.objectfifo.release @to_workers_1(Produce, 1)
// CHECK-NEXT:   }

// Worker 1 receives messages 1, 3, 5, 7: its tile coordinate is 2m + 1.
// CHECK:      aie.core(%[[W0]]) {
// CHECK-NEXT:   %c0{{.*}} = arith.constant 0 : index
// CHECK-NEXT:   %cmax{{.*}} = arith.constant 9223372036854775807 : index
// CHECK-NEXT:   %c1{{.*}} = arith.constant 1 : index
// CHECK-NEXT:   scf.for %run{{.*}} = %c0{{.*}} to %cmax{{.*}} step %c1{{.*}} {
// CHECK:        aie.objectfifo.acquire @to_workers_0(Consume, 1)
// CHECK:        aie.objectfifo.acquire @to_storer_0(Produce, 1)
// CHECK:      aie.core(%[[W1]]) {
// CHECK-NEXT:   %c0{{.*}} = arith.constant 0 : index
// CHECK-NEXT:   %cmax{{.*}} = arith.constant 9223372036854775807 : index
// CHECK-NEXT:   %c1{{.*}} = arith.constant 1 : index
// CHECK-NEXT:   scf.for %run{{.*}} = %c0{{.*}} to %cmax{{.*}} step %c1{{.*}} {
// CHECK:        scf.for %[[M:.*]] = 
// CHECK:          aie.objectfifo.acquire @to_workers_1(Consume, 1)
// CHECK:          %[[G:.*]] = arith.muli %[[M]], %{{.*}} : index
// CHECK-NEXT:     %[[G1:.*]] = arith.addi %[[G]], %{{.*}} : index
// CHECK-NEXT:     %[[C:.*]] = arith.index_cast %[[G1]] : index to i32
// CHECK:          func.call @work(%[[C]],

// The storer alternates between the two workers' fifos.
// CHECK:      aie.core(%[[STORER]]) {
// CHECK-NEXT:   %c0{{.*}} = arith.constant 0 : index
// CHECK-NEXT:   %cmax{{.*}} = arith.constant 9223372036854775807 : index
// CHECK-NEXT:   %c1{{.*}} = arith.constant 1 : index
// CHECK-NEXT:   scf.for %run{{.*}} = %c0{{.*}} to %cmax{{.*}} step %c1{{.*}} {
// CHECK:          aie.objectfifo.acquire @to_storer_0(Consume, 1)
// CHECK:          func.call @store(
// CHECK:          aie.objectfifo.acquire @to_storer_1(Consume, 1)
// CHECK:          func.call @store(

// CHECK:      aie.runtime_sequence(%{{.*}}: memref<8x128xi32>, %{{.*}}: memref<8x128xi32>) {
// CHECK-NEXT:   aiex.npu.dma_memcpy_nd(%{{.*}}[0, 0, 0, 0][1, 1, 1, 1024][0, 0, 0, 1]) {id = 0 : i64, issue_token = true, metadata = @y_storer}
// CHECK-NEXT:   aiex.npu.dma_memcpy_nd(%{{.*}}[0, 0, 0, 0][1, 1, 1, 1024][0, 0, 0, 1]) {id = 1 : i64, metadata = @x_loader}
// CHECK-NEXT:   aiex.npu.dma_wait {symbol = @y_storer}
