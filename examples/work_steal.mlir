// Work stealing with CSP (seed 001 §9.4): a generator sends one attention task per
// (b, h) into a shared queue of capacity 1024; four replicas of a worker process consume it.
// A received task is issued by the worker that took it, so the dispatch key "replica"
// (the index of the issuing replica) places each task on the worker that stole it.

wsp.kernel @attn_kernel(b: index, h: index, Q: in memref<64x64xf32>, K: in memref<64x64xf32>, V: in memref<64x64xf32>, O: out memref<64x64xf32>) unit(cube) cost(1024)

csp.pipeline @work_steal(%batch_size: index, %Q: memref<?x8x64x64xf32>, %K: memref<?x64x64xf32>, %V: memref<?x64x64xf32>, %O: memref<?x8x64x64xf32>) {
  csp.channel @work_queue : !wsp.task capacity(1024)
  csp.process @generator produces(@work_queue) {
    %batch = wsp.dense_dyn %batch_size
    %heads = wsp.dense 8
    wsp.for_each %b in %batch named("b") : !wsp.dense_dyn {
      %k = wsp.view %K[%b] : memref<?x64x64xf32> -> memref<64x64xf32>
      %v = wsp.view %V[%b] : memref<?x64x64xf32> -> memref<64x64xf32>
      wsp.for_each %h in %heads named("h") : !wsp.dense<8> {
        %q = wsp.view %Q[%b, %h] : memref<?x8x64x64xf32> -> memref<64x64xf32>
        %o = wsp.view %O[%b, %h] : memref<?x8x64x64xf32> -> memref<64x64xf32>
        csp.send @work_queue {
          wsp.task @attn_kernel(%b, %h : index, index) resources(%q, %k, %v, %o : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>)
        }
      }
    }
  }
  csp.process @worker consumes(@work_queue) replicas(4) {
    csp.consume @work_queue as %t : !wsp.task {
    }
  }
}

sched.schedule @work_steal_sched for @work_steal {
  sched.dispatch dispatch_by key(%r = "replica") {
    sched.yield %r : index
  }
}
