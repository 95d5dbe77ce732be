// Mixture of experts with sparse routing (seed 001 §9.2): token b is routed to the experts
// stored in row b of a CSR matrix (indptr, indices); wsp.select walks exactly that row, so
// the program creates nnz expert tasks, one per (token, selected expert) pair.
// Schedule: work stealing for load balance, eight streams, one per expert (e mod 8).

wsp.kernel @expert_kernel(b: index, e: index, tokens: in memref<128xf32>, weights: in memref<128x128xf32>, out: out memref<128xf32>) unit(cube) cost(2048)

wsp.workload @moe(%tokens: memref<?x128xf32>, %expert_weights: memref<8x128x128xf32>, %expert_out: memref<?x8x128xf32>, %batch_size: index, %indptr: memref<?xindex>, %indices: memref<?xindex>) {
  %batch = wsp.dense_dyn %batch_size
  %routing = wsp.sparse %batch_size, %indptr, %indices : memref<?xindex>, memref<?xindex>
  wsp.parallel_for %b in %batch named("b") : !wsp.dense_dyn {
    %t = wsp.view %tokens[%b] : memref<?x128xf32> -> memref<128xf32>
    wsp.select %e in %routing[%b] named("e") : !wsp.sparse {
      %w = wsp.view %expert_weights[%e] : memref<8x128x128xf32> -> memref<128x128xf32>
      %o = wsp.view %expert_out[%b, %e] : memref<?x8x128xf32> -> memref<128xf32>
      wsp.task @expert_kernel(%b, %e : index, index) resources(%t, %w, %o : memref<128xf32>, memref<128x128xf32>, memref<128xf32>)
    }
  }
}

sched.schedule @moe_sched for @moe {
  sched.dispatch work_steal
  sched.streams 8
  sched.stream_by key(%e = "e") {
    %c8 = arith.constant 8 : index
    %s = arith.remui %e, %c8 : index
    sched.yield %s : index
  }
}
