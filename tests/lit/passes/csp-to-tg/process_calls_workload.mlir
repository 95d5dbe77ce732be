// RUN: pto-opt %s -p csp-to-tg,wsp-to-tg | FileCheck %s
// RUN: pto-opt %s -t 'aie{program=p}' | FileCheck %s --check-prefix=AIE
// RUN: not pto-opt %s -p wsp-to-tg,csp-to-tg 2>&1 | FileCheck %s --check-prefix=ORDER

// A process whose body calls a workload (seed 001 §4): csp-to-tg inlines the call into the
// process; wsp-to-tg then lowers the workload itself, which stays callable. The targets
// lower in that order; the other order has no workload left to inline.

wsp.kernel @load(i: index, src: in memref<16xf32>, tile: out memref<16xf32>) unit(vector) cost(10)
wsp.kernel @compute(i: index, tile: in memref<16xf32>, dst: out memref<16xf32>) unit(vector) cost(40)

wsp.workload @load_tile(%src: memref<8x16xf32>, %tiles: memref<8x16xf32>, %i: index) {
  %s = wsp.view %src[%i] : memref<8x16xf32> -> memref<16xf32>
  %t = wsp.view %tiles[%i] : memref<8x16xf32> -> memref<16xf32>
  wsp.task @load(%i : index) resources(%s, %t : memref<16xf32>, memref<16xf32>)
}

csp.pipeline @p(%src: memref<8x16xf32>, %tiles: memref<8x16xf32>, %dst: memref<8x16xf32>) {
  csp.channel @c : !wsp.task capacity(2)
  csp.process @loader produces(@c) {
    %d = wsp.dense 8
    wsp.for_each %i in %d named("i") : !wsp.dense<8> {
      csp.send @c {
        wsp.call @load_tile(%src, %tiles, %i : memref<8x16xf32>, memref<8x16xf32>, index)
      }
    }
  }
  csp.process @computer consumes(@c) {
    csp.consume @c as %m : !wsp.task {
      %i = csp.coord %m[0]
      %t = wsp.view %tiles[%i] : memref<8x16xf32> -> memref<16xf32>
      %o = wsp.view %dst[%i] : memref<8x16xf32> -> memref<16xf32>
      wsp.task @compute(%i : index) resources(%t, %o : memref<16xf32>, memref<16xf32>)
    }
  }
}

// CHECK:      tg.program @load_tile(
// CHECK:        tg.task @load(
// CHECK:      tg.program @p(
// CHECK:        tg.process @loader {
// CHECK:          tg.send @c at(i = %i) {
// CHECK-NEXT:       memref.subview
// CHECK-NEXT:       memref.subview
// CHECK-NEXT:       tg.task @load(%i : index)
// CHECK:        tg.process @computer
// CHECK-NOT:  wsp.call

// AIE: aie.device
// AIE: aie.objectfifo @c

// ORDER: error: 'wsp.call' op call refers to unknown workload @load_tile
