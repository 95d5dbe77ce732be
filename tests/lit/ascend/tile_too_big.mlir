// RUN: not pto-opt %s -t ascend -o %t 2>&1 | filecheck %s

// A tile larger than its buffer is the planner's error at the op that makes it (the target
// plans each tile function for its soc before emitting it).

wsp.kernel @k(x: in memref<1000000x1000000xf32>) unit(vector) cost(1) attributes {tile = @k_tile}
func.func @k_tile(%x: memref<1000000x1000000xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  // CHECK: tile_too_big.mlir:[[# @LINE + 1]]:8: error: 'pto.load' op kernel @k: pto-plan-memory: tile %t (!pto.tile<1000000x1000000xf32, vec>, 4000000000000 B) does not fit in vec: {{.*}} the 910B's UB holds 196608 B
  %t = pto.load %x : memref<1000000x1000000xf32> -> !pto.tile<1000000x1000000xf32, vec>
  func.return
}
wsp.workload @w(%x: memref<1000000x1000000xf32>) {
  %d = wsp.dense 1
  wsp.parallel_for %b in %d named("b") : !wsp.dense<1> {
    wsp.task @k() resources(%x : memref<1000000x1000000xf32>)
  }
}
