// RUN: pto-opt %s | FileCheck %s
// RUN: pto-opt %s | pto-opt | FileCheck %s
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s

// Every csp op and type, in the custom form: the megakernel of seed 001 §9.3 (three stages
// and an event), the work queue of §9.4 (replicated workers), and optional clauses.

wsp.kernel @load_kernel(i: index, src: in memref<64xf32>, dst: out memref<64xf32>)
wsp.kernel @compute_kernel(i: index, tile: in memref<64xf32>, res: out memref<64xf32>)
wsp.kernel @store_kernel(i: index, res: in memref<64xf32>, dst: out memref<64xf32>)
wsp.kernel @attn_kernel(b: index, h: index, q: inout memref<8xf32>)

csp.pipeline @megakernel(%num_tiles: index, %input: memref<?x64xf32>, %output: memref<?x64xf32>, %buf: memref<64xf32>, %res: memref<64xf32>) {
  csp.channel @l2c : !wsp.task capacity(2)
  csp.channel @c2s : !wsp.task capacity(2)
  csp.channel @done : !csp.signal capacity(0)
  csp.process @loader produces(@l2c) {
    %ax = wsp.dense_dyn %num_tiles
    wsp.for_each %i in %ax named("i") : !wsp.dense_dyn {
      %v = wsp.view %input[%i] : memref<?x64xf32> -> memref<64xf32>
      csp.send @l2c {
        wsp.task @load_kernel(%i : index) resources(%v, %buf : memref<64xf32>, memref<64xf32>)
      }
    }
  }
  csp.process @computer consumes(@l2c) produces(@c2s, @done) replicas(4) {
    wsp.sequential {
      csp.consume @l2c as %tile : !wsp.task {
        %ci = csp.coord %tile[0]
        csp.send @c2s {
          wsp.task @compute_kernel(%ci : index) resources(%buf, %res : memref<64xf32>, memref<64xf32>)
        }
      }
      csp.record @done
    }
  }
  csp.process @storer consumes(@c2s, @done) {
    csp.consume @c2s as %result : !wsp.task {
      %si = csp.coord %result[0]
      %o = wsp.view %output[%si] : memref<?x64xf32> -> memref<64xf32>
      wsp.task @store_kernel(%si : index) resources(%res, %o : memref<64xf32>, memref<64xf32>)
    }
    csp.synchronize @done
  }
}

csp.pipeline @work_steal(%batch: index, %q: memref<?x8x8xf32>) attributes {seed = "001 9.4"} {
  csp.channel @work_queue : !wsp.task capacity(1024) attributes {note = "shared"}
  csp.process @generator produces(@work_queue) {
    %bs = wsp.dense_dyn %batch
    %hs = wsp.dense 8
    wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {
      wsp.parallel_for %h in %hs named("h") : !wsp.dense<8> {
        %qv = wsp.view %q[%b, %h] : memref<?x8x8xf32> -> memref<8xf32>
        csp.send @work_queue {
          wsp.task @attn_kernel(%b, %h : index, index) resources(%qv : memref<8xf32>)
        } attributes {tag = 1 : i64}
      }
    }
  }
  csp.process @worker consumes(@work_queue) replicas(4) attributes {pool = "aicpu"} {
    csp.consume @work_queue as %t : !wsp.task {
      %cb = csp.coord %t[0] {hint}
      %ch = csp.coord %t[1]
    } attributes {order = "fifo"}
  }
  csp.process @idle {
  }
}

// CHECK:      builtin.module {
// CHECK-NEXT:   wsp.kernel @load_kernel(i: index, src: in memref<64xf32>, dst: out memref<64xf32>) unit(vector)
// CHECK-NEXT:   wsp.kernel @compute_kernel(i: index, tile: in memref<64xf32>, res: out memref<64xf32>) unit(vector)
// CHECK-NEXT:   wsp.kernel @store_kernel(i: index, res: in memref<64xf32>, dst: out memref<64xf32>) unit(vector)
// CHECK-NEXT:   wsp.kernel @attn_kernel(b: index, h: index, q: inout memref<8xf32>) unit(vector)
// CHECK-NEXT:   csp.pipeline @megakernel(%num_tiles: index, %input: memref<?x64xf32>, %output: memref<?x64xf32>, %buf: memref<64xf32>, %res: memref<64xf32>) {
// CHECK-NEXT:     csp.channel @l2c : !wsp.task capacity(2)
// CHECK-NEXT:     csp.channel @c2s : !wsp.task capacity(2)
// CHECK-NEXT:     csp.channel @done : !csp.signal capacity(0)
// CHECK-NEXT:     csp.process @loader produces(@l2c) {
// CHECK-NEXT:       %ax = wsp.dense_dyn %num_tiles
// CHECK-NEXT:       wsp.for_each %i in %ax named("i") : !wsp.dense_dyn {
// CHECK-NEXT:         %v = wsp.view %input[%i] : memref<?x64xf32> -> memref<64xf32>
// CHECK-NEXT:         csp.send @l2c {
// CHECK-NEXT:           wsp.task @load_kernel(%i : index) resources(%v, %buf : memref<64xf32>, memref<64xf32>)
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     csp.process @computer consumes(@l2c) produces(@c2s, @done) replicas(4) {
// CHECK-NEXT:       wsp.sequential {
// CHECK-NEXT:         csp.consume @l2c as %tile : !wsp.task {
// CHECK-NEXT:           %ci = csp.coord %tile[0]
// CHECK-NEXT:           csp.send @c2s {
// CHECK-NEXT:             wsp.task @compute_kernel(%ci : index) resources(%buf, %res : memref<64xf32>, memref<64xf32>)
// CHECK-NEXT:           }
// CHECK-NEXT:         }
// CHECK-NEXT:         csp.record @done
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     csp.process @storer consumes(@c2s, @done) {
// CHECK-NEXT:       csp.consume @c2s as %result : !wsp.task {
// CHECK-NEXT:         %si = csp.coord %result[0]
// CHECK-NEXT:         %o = wsp.view %output[%si] : memref<?x64xf32> -> memref<64xf32>
// CHECK-NEXT:         wsp.task @store_kernel(%si : index) resources(%res, %o : memref<64xf32>, memref<64xf32>)
// CHECK-NEXT:       }
// CHECK-NEXT:       csp.synchronize @done
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   csp.pipeline @work_steal(%batch: index, %q: memref<?x8x8xf32>) attributes {seed = "001 9.4"} {
// CHECK-NEXT:     csp.channel @work_queue : !wsp.task capacity(1024) attributes {note = "shared"}
// CHECK-NEXT:     csp.process @generator produces(@work_queue) {
// CHECK-NEXT:       %bs = wsp.dense_dyn %batch
// CHECK-NEXT:       %hs = wsp.dense 8
// CHECK-NEXT:       wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {
// CHECK-NEXT:         wsp.parallel_for %h in %hs named("h") : !wsp.dense<8> {
// CHECK-NEXT:           %qv = wsp.view %q[%b, %h] : memref<?x8x8xf32> -> memref<8xf32>
// CHECK-NEXT:           csp.send @work_queue {
// CHECK-NEXT:             wsp.task @attn_kernel(%b, %h : index, index) resources(%qv : memref<8xf32>)
// CHECK-NEXT:           } attributes {tag = 1 : i64}
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     csp.process @worker consumes(@work_queue) replicas(4) attributes {pool = "aicpu"} {
// CHECK-NEXT:       csp.consume @work_queue as %t : !wsp.task {
// CHECK-NEXT:         %cb = csp.coord %t[0] {hint}
// CHECK-NEXT:         %ch = csp.coord %t[1]
// CHECK-NEXT:       } attributes {order = "fifo"}
// CHECK-NEXT:     }
// CHECK-NEXT:     csp.process @idle {
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }
