// RUN: pto-opt %s | FileCheck %s
// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s

// A schedule bound to a csp.pipeline: its task coordinates are the loop names inside its
// processes plus `replica`, the replica index of the issuing process.

wsp.kernel @attn_kernel(b: index, h: index, q: inout memref<8xf32>)

csp.pipeline @work_queue(%batch: index, %q: memref<?x8x8xf32>) {
  csp.channel @tasks : !wsp.task capacity(1024)
  csp.process @generator produces(@tasks) {
    %bs = wsp.dense_dyn %batch
    %hs = wsp.dense 8
    wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {
      wsp.parallel_for %h in %hs named("h") : !wsp.dense<8> {
        %qv = wsp.view %q[%b, %h] : memref<?x8x8xf32> -> memref<8xf32>
        csp.send @tasks {
          wsp.task @attn_kernel(%b, %h : index, index) resources(%qv : memref<8xf32>)
        }
      }
    }
  }
  csp.process @worker consumes(@tasks) replicas(4) {
    csp.consume @tasks as %t : !wsp.task {
    }
  }
}

sched.schedule @queue_sched for @work_queue {
  sched.dispatch dispatch_by key(%r = "replica") {
    sched.yield %r : index
  }
  sched.streams 2
  sched.stream_by key(%h = "h") {
    sched.yield %h : index
  }
  sched.spatial_map grid(2, 2)
  sched.layout "q" (shard(1), shard(0), replicate)
}

// CHECK:      sched.schedule @queue_sched for @work_queue {
// CHECK-NEXT:   sched.dispatch dispatch_by key(%r = "replica") {
// CHECK-NEXT:     sched.yield %r : index
// CHECK-NEXT:   }
// CHECK-NEXT:   sched.streams 2
// CHECK-NEXT:   sched.stream_by key(%h = "h") {
// CHECK-NEXT:     sched.yield %h : index
// CHECK-NEXT:   }
// CHECK-NEXT:   sched.spatial_map grid(2, 2)
// CHECK-NEXT:   sched.layout "q" (shard(1), shard(0), replicate)
// CHECK-NEXT: }
