// RUN: pto-opt %s --split-input-file --allow-unregistered-dialect -p wsp-to-tg 2>&1 | FileCheck %s

// The schedule becomes per-task computations (target, stream, priority, pool) cloned from
// its keys with the task's coordinates bound by name, and the program's config.

wsp.kernel @k(b: index, h: index) unit(vector)

wsp.workload @w(%n: index) {
  %bs = wsp.dense_dyn %n
  %hs = wsp.dense 8
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %hs named("h") : !wsp.dense<8> {
      wsp.task @k(%b, %h : index, index) resources()
    }
  }
}

sched.schedule @s for @w {
  sched.dispatch affinity("b")
  sched.streams 2
  sched.stream_by key(%x = "h") {
    %c2 = arith.constant 2 : index
    %r = arith.remui %x, %c2 : index
    sched.yield %r : index
  }
  sched.issue priority key(%b = "b", %h = "h") {
    %p = arith.addi %b, %h : index
    sched.yield %p : index
  }
  sched.timing batched(16)
  sched.pipeline_depth 2 scope(per_stream)
  sched.task_window 64 overflow(abort)
  sched.batch_deps 8
}

// CHECK-LABEL: tg.program @w(%n: index) config {dispatch = "affinity", streams = 2 : i64, ready = "priority", timing = "batched", timing_n = 16 : i64, pipeline_depth = 2 : i64, depth_scope = "per_stream", task_window = 64 : i64, window_overflow = "abort", batch_deps = 8 : i64} {
// CHECK:         %[[R:.*]] = arith.remui %h, %{{.*}} : index
// CHECK-NEXT:    %[[P:.*]] = arith.addi %b, %h : index
// CHECK-NEXT:    tg.task @k(%b, %h : index, index) resources() at(b = %b, h = %h) pool(vector) target(%b) stream(%[[R]]) priority(%[[P]])
// CHECK-NOT:   sched.schedule

// -----

wsp.kernel @k(b: index) unit(vector)
wsp.workload @w(%n: index) {
  %bs = wsp.dense_dyn %n
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {
    wsp.task @k(%b : index) resources()
  }
}
sched.schedule @s for @w {
  sched.dispatch round_robin(4)
}
// round_robin(n): the task's sequence number mod n.
// CHECK-LABEL: tg.program @w(%n: index) config {dispatch = "round_robin", workers = 4 : i64} {
// CHECK:         %[[SEQ:.*]] = tg.seq
// CHECK-NEXT:    %[[N:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[T:.*]] = arith.remui %[[SEQ]], %[[N]] : index
// CHECK-NEXT:    tg.task @k(%b : index) resources() at(b = %b) pool(vector) target(%[[T]])

// -----

wsp.kernel @k(b: index) unit(vector)
wsp.workload @w(%n: index) {
  %bs = wsp.dense_dyn %n
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {
    wsp.task @k(%b : index) resources()
  }
}
sched.schedule @s for @w {
  sched.dispatch range("b", 3)
}
// range(b, n): contiguous blocks of b over n workers, (b * n) / extent(b).
// CHECK-LABEL: tg.program @w(%n: index) config {dispatch = "range", workers = 3 : i64} {
// CHECK:         %[[M:.*]] = arith.muli %b, %{{.*}} : index
// CHECK-NEXT:    %[[T:.*]] = arith.divui %[[M]], %n : index
// CHECK-NEXT:    tg.task @k(%b : index) resources() at(b = %b) pool(vector) target(%[[T]])

// -----

wsp.kernel @k(b: index) unit(vector)
wsp.workload @w(%n: index) {
  %bs = wsp.dense_dyn %n
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {
    wsp.task @k(%b : index) resources()
  }
}
sched.schedule @s for @w {
  sched.dispatch hash key(%b = "b") {
    sched.yield %b : index
  }
  sched.dispatch_threshold 100 below(vector) above(cube) key(%b = "b") {
    sched.yield %b : index
  }
}
// hash(key): a multiplicative hash of the key; dispatch_threshold: the pool by the metric.
// CHECK-LABEL: tg.program @w(%n: index) config {dispatch = "hash"} {
// CHECK:         %[[G:.*]] = arith.muli %b, %{{.*}} : index
// CHECK-NEXT:    %{{.*}} = arith.constant 4294967296 : index
// CHECK-NEXT:    %[[T:.*]] = arith.remui %[[G]], %{{.*}} : index
// CHECK-NEXT:    %[[C:.*]] = arith.constant 100 : index
// CHECK-NEXT:    %[[LT:.*]] = arith.cmpi ult, %b, %[[C]] : index
// CHECK:         %[[POOL:.*]] = arith.select %[[LT]], %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    tg.task @k(%b : index) resources() at(b = %b) pool(%[[POOL]]) target(%[[T]])

// -----

wsp.kernel @k(b: index) unit(vector)
wsp.workload @w(%n: index) {
  %bs = wsp.dense_dyn %n
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {
    wsp.task @k(%b : index) resources()
  }
  wsp.task @k(%n : index) resources()
}
sched.schedule @s for @w {
  sched.dispatch work_steal
  sched.spatial_map grid(2, 2)
  sched.stream_by key(%b = "b") {
    sched.yield %b : index
  }
  sched.streams 2
  "npu.double_buffer"() {depth = 2 : i64} : () -> ()
}
// A task without the key's coordinate gets no stream (warned once); an extension op is
// kept in the config and reported.
// CHECK: warning: wsp-to-tg does not know the schedule op 'npu.double_buffer'
// CHECK: warning: the stream key uses coordinate(s) b that some tasks do not have
// CHECK-LABEL: tg.program @w(%n: index) config {dispatch = "work_steal", spatial_map = array<i64: 2, 2>, streams = 2 : i64, extensions = ["npu.double_buffer"]} {
// CHECK:         tg.task @k(%b : index) resources() at(b = %b) pool(vector) stream(%b)
// CHECK:         tg.task @k(%n : index) resources() pool(vector)
