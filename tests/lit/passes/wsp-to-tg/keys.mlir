// RUN: pto-opt %s --split-input-file -p wsp-to-tg 2>&1 | FileCheck %s

// A key over task data is cloned at each task with its arguments bound by name: coordinates
// to the loop indices, parameters to the task's operands for the kernel's parameters of
// those names, tensors to the program's arguments of those names.

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
  sched.dispatch dispatch_by key(%b = "b", %x = param("seq_len") : index) {
    %c2048 = arith.constant 2048 : index
    %long = arith.cmpi sgt, %x, %c2048 : index
    %c0 = arith.constant 0 : index
    %w = arith.select %long, %c0, %b : index
    sched.yield %w : index
  }
  sched.issue priority key(%b = "b", %L = tensor("seq_lens") : memref<?xi64>) {
    %v = memref.load %L[%b] : memref<?xi64>
    %p = arith.index_cast %v : i64 to index
    sched.yield %p : index
  }
}

// CHECK-LABEL: tg.program @attention(%seq_lens: memref<?xi64>, %O: memref<?x4xf32>, %n: index)
// CHECK:         scf.for %b =
// CHECK:           %[[LEN:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:           %[[LONG:.*]] = arith.cmpi sgt, %[[LEN]], %{{.*}} : index
// CHECK:           %[[W:.*]] = arith.select %[[LONG]], %{{.*}}, %b : index
// CHECK:           %[[V:.*]] = memref.load %seq_lens[%b] : memref<?xi64>
// CHECK:           %[[P:.*]] = arith.index_cast %[[V]] : i64 to index
// CHECK:           tg.task @attn(%b, %[[LEN]] : index, index) {{.*}} target(%[[W]]) priority(%[[P]])

// -----

// A kernel without the parameter: its tasks get no target, said once.

wsp.kernel @k(b: index)
wsp.workload @w(%n: index) {
  %bs = wsp.dense_dyn %n
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {
    wsp.task @k(%b : index) resources()
  }
}
sched.schedule @s for @w {
  sched.dispatch dispatch_by key(%x = param("seq_len") : index) {
    sched.yield %x : index
  }
}

// CHECK: warning: the dispatch key reads parameter(s) seq_len that kernel @k does not take; those tasks get no dispatch (the runtime decides)
// CHECK: tg.task @k(%b : index) resources() at(b = %b) pool(vector)
// CHECK-NOT: target(

// -----

// An integer parameter (i64, i1) read as an index: cast (i1 zero-extended first).

wsp.kernel @k2(b: index, n: i64, on: i1)
wsp.workload @w2(%n: index, %m: i64, %f: i1) {
  %bs = wsp.dense_dyn %n
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {
    wsp.task @k2(%b, %m, %f : index, i64, i1) resources()
  }
}
sched.schedule @s2 for @w2 {
  sched.issue priority key(%x = param("n") : index, %y = param("on") : index) {
    %p = arith.addi %x, %y : index
    sched.yield %p : index
  }
}

// CHECK-LABEL: tg.program @w2
// CHECK:         %[[X:.*]] = arith.index_cast %m : i64 to index
// CHECK-NEXT:    %[[E:.*]] = arith.extui %f : i1 to i64
// CHECK-NEXT:    %[[Y:.*]] = arith.index_cast %[[E]] : i64 to index
// CHECK-NEXT:    %[[P:.*]] = arith.addi %[[X]], %[[Y]] : index
// CHECK-NEXT:    tg.task @k2(%b, %m, %f : index, i64, i1) {{.*}} priority(%[[P]])
