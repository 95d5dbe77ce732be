// RUN: not pto-opt %s -t ascend -o %t 2>&1 | filecheck %s
// RUN: rm -rf %t.950 && pto-opt %s -t 'ascend{soc=950}' -o %t.950 | filecheck %s --check-prefix=FITS

// The Ascend target plans each tile function for its soc: three 72 KiB tiles live at once
// overflow the 910B's 192 KiB UB (the located error of pto-plan-memory, naming the kernel)
// and fit in the 950's 248 KiB.

wsp.kernel @k(x: in memref<128x144xf32>, y: out memref<128x144xf32>) unit(vector) cost(1) attributes {tile = @k_tile}
func.func @k_tile(%x: memref<128x144xf32>, %y: memref<128x144xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %t = pto.load %x : memref<128x144xf32> -> !pto.tile<128x144xf32, vec>
  %u = pto.exp %t : !pto.tile<128x144xf32, vec>
  // CHECK: tile_capacity.mlir:[[# @LINE + 1]]:8: error: 'pto.add' op kernel @k: pto-plan-memory: tile %v (!pto.tile<128x144xf32, vec>, 73728 B) does not fit in vec: 147456 B live + 73728 B need 221184 B at this point, the 910B's UB holds 196608 B
  %v = pto.add %t, %u : !pto.tile<128x144xf32, vec>
  pto.store %v, %y : !pto.tile<128x144xf32, vec>, memref<128x144xf32>
  func.return
}
wsp.workload @w(%x: memref<?x128x144xf32>, %y: memref<?x128x144xf32>, %n: index) {
  %d = wsp.dense_dyn %n
  wsp.parallel_for %b in %d named("b") : !wsp.dense_dyn {
    %xv = wsp.view %x[%b] : memref<?x128x144xf32> -> memref<128x144xf32>
    %yv = wsp.view %y[%b] : memref<?x128x144xf32> -> memref<128x144xf32>
    wsp.task @k() resources(%xv, %yv : memref<128x144xf32>, memref<128x144xf32>)
  }
}

// FITS: kernels/k_body.cpp
