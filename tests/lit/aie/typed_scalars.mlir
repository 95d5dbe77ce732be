// Typed kernel scalars on AIE (the megakernel of examples/megakernel.mlir whose compute kernel
// also takes an f32, an i32 and an i1): the kernel's declaration keeps their types (index
// becomes i32), the f32 and i1 constants are copied into the core and the i32 is computed
// there from the received coordinate.
//
// RUN: pto-opt %s -t 'aie{bind="num_tiles=4"}' | FileCheck %s

// CHECK: func.func private @compute_kernel(i32, f32, i32, i1, memref<64xf32>, memref<64xf32>) -> () attributes {link_with = "compute_kernel.o"}
// CHECK: %[[A:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[T:.*]] = arith.constant true
// CHECK: func.call @compute_kernel(%{{.*}}, %[[A]], %[[N]], %[[T]], %{{.*}}, %{{.*}}) : (i32, f32, i32, i1, memref<64xf32>, memref<64xf32>) -> ()

wsp.kernel @load_kernel(i: index, src: in memref<64xf32>, tile: out memref<64xf32>) unit(vector) cost(100)
wsp.kernel @compute_kernel(i: index, alpha: f32, n: i32, flag: i1, tile: in memref<64xf32>, result: out memref<64xf32>) unit(vector) cost(400)
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
      %a = arith.constant 5.000000e-01 : f32
      %f = arith.constant true
      %i = csp.coord %t[0]
      %n = arith.index_cast %i : index to i32
      %tile = wsp.view %tile_buf[%i] : memref<?x64xf32> -> memref<64xf32>
      %result = wsp.view %result_buf[%i] : memref<?x64xf32> -> memref<64xf32>
      csp.send @compute_to_store {
        wsp.task @compute_kernel(%i, %a, %n, %f : index, f32, i32, i1) resources(%tile, %result : memref<64xf32>, memref<64xf32>)
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
