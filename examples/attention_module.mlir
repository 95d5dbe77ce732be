// The attention module of seed 000 §8.2 (the .pto example) in MLIR form: a workload whose
// axes are arguments (DenseDyn batch, Dense<8> heads), its schedule, and the megakernel
// CSP pipeline. Schedule: batch affinity, two streams by h mod 2, immediate issue.

wsp.kernel @attn_kernel(b: index, h: index, Q: in memref<64x64xf32>, K: in memref<64x64xf32>, V: in memref<64x64xf32>, O: out memref<64x64xf32>) unit(cube) cost(1024)
wsp.kernel @load_kernel(i: index, input: in memref<64xf32>, buf: out memref<64xf32>) unit(vector) cost(100)
wsp.kernel @compute_kernel(i: index, buf: in memref<64xf32>, out: out memref<64xf32>) unit(vector) cost(300)
wsp.kernel @store_kernel(i: index, out: in memref<64xf32>, final: out memref<64xf32>) unit(vector) cost(100)

wsp.workload @attention(%batch: !wsp.dense_dyn, %heads: !wsp.dense<8>, %Q: memref<?x8x64x64xf32>, %K: memref<?x64x64xf32>, %V: memref<?x64x64xf32>, %O: memref<?x8x64x64xf32>) {
  wsp.parallel_for %b in %batch named("b") : !wsp.dense_dyn {
    %k = wsp.view %K[%b] : memref<?x64x64xf32> -> memref<64x64xf32>
    %v = wsp.view %V[%b] : memref<?x64x64xf32> -> memref<64x64xf32>
    wsp.parallel_for %h in %heads named("h") : !wsp.dense<8> {
      %q = wsp.view %Q[%b, %h] : memref<?x8x64x64xf32> -> memref<64x64xf32>
      %o = wsp.view %O[%b, %h] : memref<?x8x64x64xf32> -> memref<64x64xf32>
      wsp.task @attn_kernel(%b, %h : index, index) resources(%q, %k, %v, %o : memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>, memref<64x64xf32>)
    }
  }
}

sched.schedule @attention_sched for @attention {
  sched.dispatch affinity("b")
  sched.streams 2
  sched.stream_by key(%h = "h") {
    %c2 = arith.constant 2 : index
    %s = arith.remui %h, %c2 : index
    sched.yield %s : index
  }
  sched.timing immediate
}

csp.pipeline @megakernel(%num_tiles: index, %input: memref<?x64xf32>, %buf: memref<?x64xf32>, %out: memref<?x64xf32>, %final: memref<?x64xf32>) {
  csp.channel @l2c : !wsp.task capacity(2)
  csp.channel @c2s : !wsp.task capacity(2)
  csp.process @loader produces(@l2c) {
    %tiles = wsp.dense_dyn %num_tiles
    wsp.for_each %i in %tiles named("i") : !wsp.dense_dyn {
      %in = wsp.view %input[%i] : memref<?x64xf32> -> memref<64xf32>
      %b = wsp.view %buf[%i] : memref<?x64xf32> -> memref<64xf32>
      csp.send @l2c {
        wsp.task @load_kernel(%i : index) resources(%in, %b : memref<64xf32>, memref<64xf32>)
      }
    }
  }
  csp.process @computer consumes(@l2c) produces(@c2s) {
    csp.consume @l2c as %tile : !wsp.task {
      %i = csp.coord %tile[0]
      %b = wsp.view %buf[%i] : memref<?x64xf32> -> memref<64xf32>
      %o = wsp.view %out[%i] : memref<?x64xf32> -> memref<64xf32>
      csp.send @c2s {
        wsp.task @compute_kernel(%i : index) resources(%b, %o : memref<64xf32>, memref<64xf32>)
      }
    }
  }
  csp.process @storer consumes(@c2s) {
    csp.consume @c2s as %result : !wsp.task {
      %i = csp.coord %result[0]
      %o = wsp.view %out[%i] : memref<?x64xf32> -> memref<64xf32>
      %f = wsp.view %final[%i] : memref<?x64xf32> -> memref<64xf32>
      wsp.task @store_kernel(%i : index) resources(%o, %f : memref<64xf32>, memref<64xf32>)
    }
  }
}
