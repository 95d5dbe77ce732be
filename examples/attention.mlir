// Variable-length attention (seed 001 §9.1): for every batch b and head h, one attention
// task reading Q[b][h], the first seq_lens[b] rows of K[b] and V[b], writing O[b][h].
// The sequence length is runtime data (a memref), so the same IR runs for any binding.
// Schedule: same batch -> same worker, two streams chosen by b mod 2, immediate issue.

wsp.kernel @attention_kernel(b: index, h: index, seq_len: index, Q: in memref<64x64xf32>, K: in memref<?x64xf32>, V: in memref<?x64xf32>, O: out memref<64x64xf32>) unit(cube) cost(4096)

wsp.workload @attention(%Q: memref<?x8x64x64xf32>, %K: memref<?x32768x64xf32>, %V: memref<?x32768x64xf32>, %O: memref<?x8x64x64xf32>, %seq_lens: memref<?xindex>, %batch_size: index) {
  %batch = wsp.dense_dyn %batch_size
  %heads = wsp.dense 8
  wsp.parallel_for %b in %batch named("b") : !wsp.dense_dyn {
    wsp.parallel_for %h in %heads named("h") : !wsp.dense<8> {
      %len = memref.load %seq_lens[%b] : memref<?xindex>
      %q = wsp.view %Q[%b, %h] : memref<?x8x64x64xf32> -> memref<64x64xf32>
      %k = wsp.view %K[%b, 0:+%len] : memref<?x32768x64xf32> -> memref<?x64xf32>
      %v = wsp.view %V[%b, 0:+%len] : memref<?x32768x64xf32> -> memref<?x64xf32>
      %o = wsp.view %O[%b, %h] : memref<?x8x64x64xf32> -> memref<64x64xf32>
      wsp.task @attention_kernel(%b, %h, %len : index, index, index) resources(%q, %k, %v, %o : memref<64x64xf32>, memref<?x64xf32>, memref<?x64xf32>, memref<64x64xf32>)
    }
  }
}

sched.schedule @attention_sched for @attention {
  sched.dispatch affinity("b")
  sched.streams 2
  sched.stream_by key(%b = "b") {
    %c2 = arith.constant 2 : index
    %s = arith.remui %b, %c2 : index
    sched.yield %s : index
  }
  sched.timing immediate
}
