// RUN: pto-opt %s --allow-unregistered-dialect | FileCheck %s
// RUN: pto-opt %s --allow-unregistered-dialect | pto-opt --allow-unregistered-dialect | FileCheck %s
// RUN: pto-opt %s --allow-unregistered-dialect --print-op-generic | pto-opt --allow-unregistered-dialect | FileCheck %s

// Extension ops (seed 000 §10): an op of another dialect may stand among the directives,
// anywhere, even as the last op, and more than once; it is kept as it is.

wsp.workload @w(%n: index) {
  %ax = wsp.dense_dyn %n
  wsp.parallel_for %b in %ax named("b") : !wsp.dense_dyn {
  }
}

sched.schedule @s for @w {
  "npu.double_buffer"() {buffer = "ub", depth = 2 : i64} : () -> ()
  sched.dispatch round_robin(2)
  "npu.double_buffer"() {buffer = "l1", depth = 3 : i64} : () -> ()
  %tag = "aie.tile_hint"() {col = 1 : i64} : () -> i32
  "aie.use"(%tag) : (i32) -> ()
  sched.stream_by key(%b = "b") {
    sched.yield %b : index
  }
  sched.streams 2
  "npu.prefetch"() ({
    "npu.region_op"() : () -> ()
  }) : () -> ()
}

// CHECK:      sched.schedule @s for @w {
// CHECK-NEXT:   "npu.double_buffer"() {buffer = "ub", depth = 2 : i64} : () -> ()
// CHECK-NEXT:   sched.dispatch round_robin(2)
// CHECK-NEXT:   "npu.double_buffer"() {buffer = "l1", depth = 3 : i64} : () -> ()
// CHECK-NEXT:   %tag = "aie.tile_hint"() {col = 1 : i64} : () -> i32
// CHECK-NEXT:   "aie.use"(%tag) : (i32) -> ()
// CHECK-NEXT:   sched.stream_by key(%b = "b") {
// CHECK-NEXT:     sched.yield %b : index
// CHECK-NEXT:   }
// CHECK-NEXT:   sched.streams 2
// CHECK-NEXT:   "npu.prefetch"() ({
// CHECK-NEXT:     "npu.region_op"() : () -> ()
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT: }
