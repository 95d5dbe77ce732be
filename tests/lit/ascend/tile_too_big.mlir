// RUN: not pto-opt %s -t ascend -o %t 2>&1 | filecheck %s

// A tile larger than its buffer on every SoC is an error at the op that makes it (the
// planner, pto-plan-memory, checks the chosen SoC's sizes).

wsp.kernel @k(x: in memref<1000000x1000000xf32>) unit(vector) cost(1) attributes {tile = @k_tile}
func.func @k_tile(%x: memref<1000000x1000000xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  // CHECK: tile_too_big.mlir:[[# @LINE + 1]]:8: error: 'pto.load' op pto.load: a tile of 4000000000000 bytes does not fit the UB (253952 bytes on the largest SoC): !pto.tile<1000000x1000000xf32, vec>
  %t = pto.load %x : memref<1000000x1000000xf32> -> !pto.tile<1000000x1000000xf32, vec>
  func.return
}
wsp.workload @w(%x: memref<1000000x1000000xf32>) {
  %d = wsp.dense 1
  wsp.parallel_for %b in %d named("b") : !wsp.dense<1> {
    wsp.task @k() resources(%x : memref<1000000x1000000xf32>)
  }
}
