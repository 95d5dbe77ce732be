// RUN: pto-opt %s | FileCheck %s
// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s
// RUN: pto-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// Keys over task data (seed 001 §5.2, §5.3): besides coordinates, a key argument may be a
// scalar parameter of the task's kernel (by name) or a tensor argument of the workload.

wsp.kernel @attn(b: index, seq_len: index, O: out memref<4xf32>)

wsp.workload @attention(%seq_lens: memref<?xi64>, %O: memref<?x4xf32>, %n: index) {
  %bs = wsp.dense_dyn %n
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {
    %l = memref.load %seq_lens[%b] : memref<?xi64>
    %len = arith.index_cast %l : i64 to index
    %o = wsp.view %O[%b] : memref<?x4xf32> -> memref<4xf32>
    wsp.task @attn(%b, %len : index, index) resources(%o : memref<4xf32>)
  }
}

sched.schedule @s for @attention {
  sched.dispatch dispatch_by key(%b = "b", %len = param("seq_len") : index) {
    %c2048 = arith.constant 2048 : index
    %long = arith.cmpi sgt, %len, %c2048 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %w = arith.select %long, %c0, %c1 : index
    sched.yield %w : index
  }
  sched.issue priority key(%b = "b", %L = tensor("seq_lens") : memref<?xi64>) {
    %l = memref.load %L[%b] : memref<?xi64>
    %p = arith.index_cast %l : i64 to index
    sched.yield %p : index
  }
}

// CHECK:      sched.dispatch dispatch_by key(%b = "b", %len = param("seq_len") : index) {
// CHECK:        arith.select
// CHECK:      sched.issue priority key(%b = "b", %L = tensor("seq_lens") : memref<?xi64>) {
// CHECK-NEXT:   %{{.*}} = memref.load %L[%b] : memref<?xi64>

// GENERIC: "sched.dispatch"() <{policy = "dispatch_by", key_names = ["b", "seq_len"], key_sources = ["coord", "param"]}>
// GENERIC: "sched.issue"() <{policy = "priority", key_names = ["b", "seq_lens"], key_sources = ["coord", "tensor"]}>
