// Three stages in sequence (seed 001 §3.6): load every batch entry, then compute every
// entry, then store every entry. wsp.sequential makes each stage wait for all tasks of
// the previous one; inside a stage the parallel_for adds no order.

wsp.kernel @load_kernel(b: index, src: in memref<256xf32>, dst: out memref<256xf32>) unit(vector) cost(50)
wsp.kernel @compute_kernel(b: index, x: inout memref<256xf32>) unit(vector) cost(200)
wsp.kernel @store_kernel(b: index, src: in memref<256xf32>, dst: out memref<256xf32>) unit(vector) cost(50)

wsp.workload @three_stage(%input: memref<?x256xf32>, %work: memref<?x256xf32>, %output: memref<?x256xf32>, %batch_size: index) {
  %batch = wsp.dense_dyn %batch_size
  wsp.sequential {
    wsp.parallel_for %b in %batch named("b") : !wsp.dense_dyn {
      %s = wsp.view %input[%b] : memref<?x256xf32> -> memref<256xf32>
      %d = wsp.view %work[%b] : memref<?x256xf32> -> memref<256xf32>
      wsp.task @load_kernel(%b : index) resources(%s, %d : memref<256xf32>, memref<256xf32>)
    }
    wsp.parallel_for %b in %batch named("b") : !wsp.dense_dyn {
      %x = wsp.view %work[%b] : memref<?x256xf32> -> memref<256xf32>
      wsp.task @compute_kernel(%b : index) resources(%x : memref<256xf32>)
    }
    wsp.parallel_for %b in %batch named("b") : !wsp.dense_dyn {
      %s = wsp.view %work[%b] : memref<?x256xf32> -> memref<256xf32>
      %d = wsp.view %output[%b] : memref<?x256xf32> -> memref<256xf32>
      wsp.task @store_kernel(%b : index) resources(%s, %d : memref<256xf32>, memref<256xf32>)
    }
  }
}
