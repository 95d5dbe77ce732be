// The megakernel CSP pipeline (seed 001 §9.3): a loader, a computer and a storer process
// connected by two channels of capacity 2 (double buffering: the loader runs at most two
// tiles ahead of the computer). Channels carry tasks: the process that receives a message
// issues its tasks, then runs its consume body for it; %tile stands for the received task
// and csp.coord gives its coordinates (the loader's loop index i).
// Schedule: one dispatch target, as in the seed.

wsp.kernel @load_kernel(i: index, src: in memref<64xf32>, tile: out memref<64xf32>) unit(vector) cost(100)
wsp.kernel @compute_kernel(i: index, tile: in memref<64xf32>, result: out memref<64xf32>) unit(vector) cost(400)
wsp.kernel @store_kernel(i: index, result: in memref<64xf32>, dst: out memref<64xf32>) unit(vector) cost(100)

csp.pipeline @megakernel(%num_tiles: index, %input: memref<?x64xf32>, %output: memref<?x64xf32>, %tile_buf: memref<?x64xf32>, %result_buf: memref<?x64xf32>) {
  csp.channel @load_to_compute : !wsp.task capacity(2)
  csp.channel @compute_to_store : !wsp.task capacity(2)
  csp.process @loader produces(@load_to_compute) {
    %tiles = wsp.dense_dyn %num_tiles
    wsp.for_each %i in %tiles named("i") : !wsp.dense_dyn {
      %src = wsp.view %input[%i] : memref<?x64xf32> -> memref<64xf32>
      %tile = wsp.view %tile_buf[%i] : memref<?x64xf32> -> memref<64xf32>
      csp.send @load_to_compute {
        wsp.task @load_kernel(%i : index) resources(%src, %tile : memref<64xf32>, memref<64xf32>)
      }
    }
  }
  csp.process @computer consumes(@load_to_compute) produces(@compute_to_store) {
    csp.consume @load_to_compute as %t : !wsp.task {
      %i = csp.coord %t[0]
      %tile = wsp.view %tile_buf[%i] : memref<?x64xf32> -> memref<64xf32>
      %result = wsp.view %result_buf[%i] : memref<?x64xf32> -> memref<64xf32>
      csp.send @compute_to_store {
        wsp.task @compute_kernel(%i : index) resources(%tile, %result : memref<64xf32>, memref<64xf32>)
      }
    }
  }
  csp.process @storer consumes(@compute_to_store) {
    csp.consume @compute_to_store as %r : !wsp.task {
      %i = csp.coord %r[0]
      %result = wsp.view %result_buf[%i] : memref<?x64xf32> -> memref<64xf32>
      %dst = wsp.view %output[%i] : memref<?x64xf32> -> memref<64xf32>
      wsp.task @store_kernel(%i : index) resources(%result, %dst : memref<64xf32>, memref<64xf32>)
    }
  }
}

sched.schedule @megakernel_sched for @megakernel {
  sched.dispatch round_robin(1)
}
