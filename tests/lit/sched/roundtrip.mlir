// RUN: pto-opt %s | FileCheck %s
// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s
// RUN: pto-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC

// Every sched directive and every policy, in the custom form. A schedule holds at most one
// directive of each kind, so the six dispatch policies take six schedules.

wsp.kernel @attn(b: index, h: index, q: inout memref<64xf32>)

wsp.workload @attention(%batch: index, %heads: index, %Q: memref<?x8x64xf32>, %K: memref<?x64xf32>) {
  %bs = wsp.dense_dyn %batch
  %hs = wsp.dense_dyn %heads
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {
    wsp.for_each %h in %hs named("h") : !wsp.dense_dyn {
      %q = wsp.view %Q[%b, %h] : memref<?x8x64xf32> -> memref<64xf32>
      wsp.task @attn(%b, %h : index, index) resources(%q : memref<64xf32>)
    }
  }
}

sched.schedule @attn_sched for @attention {
  sched.dispatch affinity("b")
  sched.streams 2
  sched.stream_by key(%b = "b") {
    %c2 = arith.constant 2 : index
    %s = arith.remui %b, %c2 : index
    sched.yield %s : index
  }
  sched.issue priority key(%b = "b", %h = "h") {
    %p = arith.addi %b, %h : index
    sched.yield %p : index
  }
  sched.timing immediate
  sched.spatial_map grid(4, 4)
  sched.layout "Q" (shard(0), replicate, shard(1))
  sched.dispatch_threshold 4096 below(vector) above(cube) key(%b = "b") {
    %c64 = arith.constant 64 : index
    %n = arith.muli %b, %c64 : index
    sched.yield %n : index
  }
  sched.pipeline_depth 2 scope(per_stream)
  sched.task_window 8192 overflow(stall)
  sched.batch_deps 64
}

// CHECK:      sched.schedule @attn_sched for @attention {
// CHECK-NEXT:   sched.dispatch affinity("b")
// CHECK-NEXT:   sched.streams 2
// CHECK-NEXT:   sched.stream_by key(%b = "b") {
// CHECK-NEXT:     %c2 = arith.constant 2 : index
// CHECK-NEXT:     %s = arith.remui %b, %c2 : index
// CHECK-NEXT:     sched.yield %s : index
// CHECK-NEXT:   }
// CHECK-NEXT:   sched.issue priority key(%b = "b", %h = "h") {
// CHECK-NEXT:     %p = arith.addi %b, %h : index
// CHECK-NEXT:     sched.yield %p : index
// CHECK-NEXT:   }
// CHECK-NEXT:   sched.timing immediate
// CHECK-NEXT:   sched.spatial_map grid(4, 4)
// CHECK-NEXT:   sched.layout "Q" (shard(0), replicate, shard(1))
// CHECK-NEXT:   sched.dispatch_threshold 4096 below(vector) above(cube) key(%b = "b") {
// CHECK-NEXT:     %c64 = arith.constant 64 : index
// CHECK-NEXT:     %n = arith.muli %b, %c64 : index
// CHECK-NEXT:     sched.yield %n : index
// CHECK-NEXT:   }
// CHECK-NEXT:   sched.pipeline_depth 2 scope(per_stream)
// CHECK-NEXT:   sched.task_window 8192 overflow(stall)
// CHECK-NEXT:   sched.batch_deps 64
// CHECK-NEXT: }

// The other policy of each kind, and an attribute dictionary on each directive.
sched.schedule @round_robin for @attention attributes {note = "rr"} {
  sched.dispatch round_robin(4) attributes {a}
  sched.streams 1 attributes {a}
  sched.issue fifo attributes {a}
  sched.timing batched(16) attributes {a}
  sched.spatial_map grid(8) attributes {a}
  sched.layout "K" (replicate, replicate) attributes {a}
  sched.pipeline_depth 1 scope(global) attributes {a}
  sched.task_window 1 overflow(abort) attributes {a}
  sched.batch_deps 1 attributes {a}
}

// CHECK:      sched.schedule @round_robin for @attention attributes {note = "rr"} {
// CHECK-NEXT:   sched.dispatch round_robin(4) attributes {a}
// CHECK-NEXT:   sched.streams 1 attributes {a}
// CHECK-NEXT:   sched.issue fifo attributes {a}
// CHECK-NEXT:   sched.timing batched(16) attributes {a}
// CHECK-NEXT:   sched.spatial_map grid(8) attributes {a}
// CHECK-NEXT:   sched.layout "K" (replicate, replicate) attributes {a}
// CHECK-NEXT:   sched.pipeline_depth 1 scope(global) attributes {a}
// CHECK-NEXT:   sched.task_window 1 overflow(abort) attributes {a}
// CHECK-NEXT:   sched.batch_deps 1 attributes {a}
// CHECK-NEXT: }

// A key over no coordinate is a constant; the key's SSA names need not be the coordinate
// names (the names in quotes are what counts).
sched.schedule @hash for @attention {
  sched.dispatch hash key(%x = "h", %y = "b") {
    %m = arith.muli %x, %y : index
    sched.yield %m : index
  } attributes {a}
  sched.streams 4
  sched.stream_by key() {
    %c0 = arith.constant 0 : index
    sched.yield %c0 : index
  } attributes {a}
  sched.timing interleaved(4)
  sched.dispatch_threshold 0 below(cube) above(vector) key(%h = "h") {
    sched.yield %h : index
  } attributes {a}
  sched.pipeline_depth 3 scope(per_pool)
}

// CHECK:      sched.schedule @hash for @attention {
// CHECK-NEXT:   sched.dispatch hash key(%x = "h", %y = "b") {
// CHECK-NEXT:     %m = arith.muli %x, %y : index
// CHECK-NEXT:     sched.yield %m : index
// CHECK-NEXT:   } attributes {a}
// CHECK-NEXT:   sched.streams 4
// CHECK-NEXT:   sched.stream_by key() {
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     sched.yield %c0 : index
// CHECK-NEXT:   } attributes {a}
// CHECK-NEXT:   sched.timing interleaved(4)
// CHECK-NEXT:   sched.dispatch_threshold 0 below(cube) above(vector) key(%h = "h") {
// CHECK-NEXT:     sched.yield %h : index
// CHECK-NEXT:   } attributes {a}
// CHECK-NEXT:   sched.pipeline_depth 3 scope(per_pool)
// CHECK-NEXT: }

sched.schedule @range for @attention {
  sched.dispatch range("h", 8)
  sched.timing rate_limit(1000)
}

// CHECK:      sched.schedule @range for @attention {
// CHECK-NEXT:   sched.dispatch range("h", 8)
// CHECK-NEXT:   sched.timing rate_limit(1000)
// CHECK-NEXT: }

sched.schedule @work_steal for @attention {
  sched.dispatch work_steal
}

// CHECK:      sched.schedule @work_steal for @attention {
// CHECK-NEXT:   sched.dispatch work_steal
// CHECK-NEXT: }

sched.schedule @dispatch_by for @attention {
  sched.dispatch dispatch_by key(%b = "b") {
    %c8192 = arith.constant 8192 : index
    %long = arith.cmpi ugt, %b, %c8192 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %aicpu = arith.select %long, %c0, %c1 : index
    sched.yield %aicpu : index
  }
}

// CHECK:      sched.schedule @dispatch_by for @attention {
// CHECK-NEXT:   sched.dispatch dispatch_by key(%b = "b") {
// CHECK-NEXT:     %c8192 = arith.constant 8192 : index
// CHECK-NEXT:     %long = arith.cmpi ugt, %b, %c8192 : index
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %c1 = arith.constant 1 : index
// CHECK-NEXT:     %aicpu = arith.select %long, %c0, %c1 : index
// CHECK-NEXT:     sched.yield %aicpu : index
// CHECK-NEXT:   }
// CHECK-NEXT: }

// An empty schedule, and a call that overrides the callee's schedule with one of ours.
sched.schedule @empty for @attention {
}

wsp.workload @outer(%batch: index, %heads: index, %Q: memref<?x8x64xf32>, %K: memref<?x64xf32>) {
  wsp.call @attention(%batch, %heads, %Q, %K : index, index, memref<?x8x64xf32>, memref<?x64xf32>) schedule(@range)
}

// CHECK:      sched.schedule @empty for @attention {
// CHECK-NEXT: }
// CHECK:      wsp.call @attention({{.*}}) schedule(@range)

// The generic form: the property names passes and wsp.call read.
// GENERIC:      "sched.schedule"() <{sym_name = "attn_sched", workload = @attention}> ({
// GENERIC-NEXT:   "sched.dispatch"() <{policy = "affinity", axis = "b"}> ({
// GENERIC-NEXT:   }) : () -> ()
// GENERIC-NEXT:   "sched.streams"() <{count = 2 : i64}> : () -> ()
// GENERIC-NEXT:   "sched.stream_by"() <{key_names = ["b"]}> ({
// GENERIC-NEXT:   ^bb0(%b: index):
// GENERIC:        "sched.issue"() <{policy = "priority", key_names = ["b", "h"]}> ({
// GENERIC-NEXT:   ^bb0(%b: index, %h: index):
// GENERIC:        "sched.timing"() <{policy = "immediate"}> : () -> ()
// GENERIC-NEXT:   "sched.spatial_map"() <{grid = array<i64: 4, 4>}> : () -> ()
// GENERIC-NEXT:   "sched.layout"() <{tensor = "Q", dims = array<i64: 0, -1, 1>}> : () -> ()
// GENERIC-NEXT:   "sched.dispatch_threshold"() <{threshold = 4096 : i64, below = "vector", above = "cube", key_names = ["b"]}> ({
// GENERIC:        "sched.pipeline_depth"() <{depth = 2 : i64, scope = "per_stream"}> : () -> ()
// GENERIC-NEXT:   "sched.task_window"() <{size = 8192 : i64, overflow = "stall"}> : () -> ()
// GENERIC-NEXT:   "sched.batch_deps"() <{count = 64 : i64}> : () -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC:      "sched.dispatch"() <{policy = "round_robin", count = 4 : i64}> ({
// GENERIC:      "sched.dispatch"() <{policy = "range", axis = "h", count = 8 : i64}> ({
