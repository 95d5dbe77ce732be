// A replicated worker (seed 001 §4.6): a loader deals tiles round-robin to two replicas of a
// worker, whose results a storer collects in the same order.
wsp.kernel @load(src: in memref<128xi32>, tile: out memref<128xi32>) unit(vector)
wsp.kernel @work(i: index, tile: in memref<128xi32>, res: out memref<128xi32>) unit(vector) attributes {impls = {aie = "work_aie2.o"}}
wsp.kernel @store(res: in memref<128xi32>, dst: out memref<128xi32>) unit(vector)

csp.pipeline @farm(%n: index, %x: memref<?x128xi32>, %y: memref<?x128xi32>, %tiles: memref<?x128xi32>, %results: memref<?x128xi32>) {
  csp.channel @to_workers : !wsp.task capacity(2)
  csp.channel @to_storer : !wsp.task capacity(0)
  csp.process @loader produces(@to_workers) {
    %rows = wsp.dense_dyn %n
    wsp.for_each %i in %rows named("i") : !wsp.dense_dyn {
      %src = wsp.view %x[%i] : memref<?x128xi32> -> memref<128xi32>
      %t = wsp.view %tiles[%i] : memref<?x128xi32> -> memref<128xi32>
      csp.send @to_workers {
        wsp.task @load() resources(%src, %t : memref<128xi32>, memref<128xi32>)
      }
    }
  }
  csp.process @worker consumes(@to_workers) produces(@to_storer) replicas(2) {
    csp.consume @to_workers as %m : !wsp.task {
      %i = csp.coord %m[0]
      %t = wsp.view %tiles[%i] : memref<?x128xi32> -> memref<128xi32>
      %r = wsp.view %results[%i] : memref<?x128xi32> -> memref<128xi32>
      csp.send @to_storer {
        wsp.task @work(%i : index) resources(%t, %r : memref<128xi32>, memref<128xi32>)
      }
    }
  }
  csp.process @storer consumes(@to_storer) {
    csp.consume @to_storer as %m : !wsp.task {
      %i = csp.coord %m[0]
      %r = wsp.view %results[%i] : memref<?x128xi32> -> memref<128xi32>
      %dst = wsp.view %y[%i] : memref<?x128xi32> -> memref<128xi32>
      wsp.task @store() resources(%r, %dst : memref<128xi32>, memref<128xi32>)
    }
  }
}
