// RUN: pto-opt %s | FileCheck %s --match-full-lines
// RUN: pto-opt %s | pto-opt | FileCheck %s --match-full-lines
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s --match-full-lines

// The axis types and the ops that make axes: static dense, runtime dense, ragged, sparse
// (CSR), and the task type that CSP channels carry.

builtin.module {
  %empty = wsp.dense 0
  %d = wsp.dense 8 {tag = "batch"}
  wsp.workload @types(%a: !wsp.dense<4>, %b: !wsp.dense<0>, %c: !wsp.dense_dyn, %r: !wsp.ragged, %s: !wsp.sparse, %t: !wsp.task) {
  }
  wsp.workload @axes(%n: index, %m: index, %lens: memref<?xi64>, %lens32: memref<8xi32>, %ip: memref<?xindex>, %ix: memref<?xi32>) {
    %d4 = wsp.dense 4
    %big = wsp.dense 9223372036854775807
    %dd = wsp.dense_dyn %n
    %dd2 = wsp.dense_dyn %m {hint = 16 : i64}
    %r = wsp.ragged %n, %lens : memref<?xi64>
    %r2 = wsp.ragged %m, %lens32 {sorted} : memref<8xi32>
    %s = wsp.sparse %n, %ip, %ix : memref<?xindex>, memref<?xi32>
    %s2 = wsp.sparse %m, %lens, %ip {format = "csr"} : memref<?xi64>, memref<?xindex>
  }
}

// CHECK:      builtin.module {
// CHECK-NEXT:   %empty = wsp.dense 0
// CHECK-NEXT:   %d = wsp.dense 8 {tag = "batch"}
// CHECK-NEXT:   wsp.workload @types(%a: !wsp.dense<4>, %b: !wsp.dense<0>, %c: !wsp.dense_dyn, %r: !wsp.ragged, %s: !wsp.sparse, %t: !wsp.task) {
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.workload @axes(%n: index, %m: index, %lens: memref<?xi64>, %lens32: memref<8xi32>, %ip: memref<?xindex>, %ix: memref<?xi32>) {
// CHECK-NEXT:     %d4 = wsp.dense 4
// CHECK-NEXT:     %big = wsp.dense 9223372036854775807
// CHECK-NEXT:     %dd = wsp.dense_dyn %n
// CHECK-NEXT:     %dd2 = wsp.dense_dyn %m {hint = 16 : i64}
// CHECK-NEXT:     %r = wsp.ragged %n, %lens : memref<?xi64>
// CHECK-NEXT:     %r2 = wsp.ragged %m, %lens32 {sorted} : memref<8xi32>
// CHECK-NEXT:     %s = wsp.sparse %n, %ip, %ix : memref<?xindex>, memref<?xi32>
// CHECK-NEXT:     %s2 = wsp.sparse %m, %lens, %ip {format = "csr"} : memref<?xi64>, memref<?xindex>
// CHECK-NEXT:   }
// CHECK-NEXT: }
