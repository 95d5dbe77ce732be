// A tile kernel's matmul on AIE: the kernel is a func.func with a body (no link_with), a loop
// nest over the output element accumulating in an scf.for iter_arg and stored into the
// output parameter (the objectfifo element the core acquired); the cores call it unchanged,
// with the default stack (no scratch).
//
// RUN: pto-opt %S/Inputs/matmul_2x2.mlir -t 'aie{device=npu1_1col}' | FileCheck %s
// RUN: pto-opt %S/Inputs/matmul_2x2.mlir -t 'aie{device=npu1_1col}' | pto-opt | FileCheck %s
// RUN: pto-opt %S/Inputs/matmul_2x2.mlir -t 'aie{device=npu1_1col}' --print-op-generic | pto-opt | FileCheck %s

// CHECK-NOT:  link_with
// CHECK:      func.func @matmul(%[[A:.*]]: memref<32x64xf32>, %[[B:.*]]: memref<64x32xf32>, %[[C:.*]]: memref<32x32xf32>) {
// CHECK-DAG:    %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:    %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:        scf.for %[[I:.*]] = %[[C0]] to %[[C32]]
// CHECK-NEXT:     scf.for %[[J:.*]] = %[[C0]] to %[[C32]]
// CHECK-NEXT:       %[[SUM:.*]] = scf.for %[[K:.*]] = %[[C0]] to %[[C64]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT:         %[[X:.*]] = memref.load %[[A]][%[[I]], %[[K]]] : memref<32x64xf32>
// CHECK-NEXT:         %[[Y:.*]] = memref.load %[[B]][%[[K]], %[[J]]] : memref<64x32xf32>
// CHECK-NEXT:         %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:         %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:         scf.yield %[[S]] : f32
// CHECK-NEXT:       }
// CHECK-NEXT:       memref.store %[[SUM]], %[[C]][%[[I]], %[[J]]] : memref<32x32xf32>
// CHECK:        func.return
// CHECK-NEXT: }
// CHECK:      aie.core
// CHECK:        func.call @matmul(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<32x64xf32>, memref<64x32xf32>, memref<32x32xf32>) -> ()
// CHECK:        aie.end
// CHECK-NEXT: }{{$}}
// CHECK-NOT:  link_with
// CHECK-NOT:  stack_size
