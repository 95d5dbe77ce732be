// A prefix scan written with for_each (seed 001 §3.2): step i reads out[i-1] and in[i] and
// writes out[i]; for_each runs iteration i+1 after all of iteration i, so the chain is
// ordered structurally. Step 0 copies in[0].

wsp.kernel @scan_first(x: in memref<64xf32>, y: out memref<64xf32>) unit(vector) cost(10)
wsp.kernel @scan_step(i: index, prev: in memref<64xf32>, x: in memref<64xf32>, y: out memref<64xf32>) unit(vector) cost(10)

wsp.workload @scan(%in: memref<?x64xf32>, %out: memref<?x64xf32>, %n: index) {
  %x0 = wsp.view %in[0] : memref<?x64xf32> -> memref<64xf32>
  %y0 = wsp.view %out[0] : memref<?x64xf32> -> memref<64xf32>
  %c1 = arith.constant 1 : index
  %rest = arith.subi %n, %c1 : index
  %steps = wsp.dense_dyn %rest
  wsp.sequential {
    wsp.task @scan_first() resources(%x0, %y0 : memref<64xf32>, memref<64xf32>)
    wsp.for_each %j in %steps named("j") : !wsp.dense_dyn {
      %i = arith.addi %j, %c1 : index
      %prev = wsp.view %out[%j] : memref<?x64xf32> -> memref<64xf32>
      %x = wsp.view %in[%i] : memref<?x64xf32> -> memref<64xf32>
      %y = wsp.view %out[%i] : memref<?x64xf32> -> memref<64xf32>
      wsp.task @scan_step(%i : index) resources(%prev, %x, %y : memref<64xf32>, memref<64xf32>, memref<64xf32>)
    }
  }
}
