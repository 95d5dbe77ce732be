// RUN: not pto-opt %s -t ascend -o %t 2>&1 | filecheck %s

// A plan (pto.addr, pto.memory: written here by hand) placing an op's result on the buffer of a
// tile it reads, when the op cannot compute in place (a transpose, a broadcast, a reduction),
// is an error at emission, not wrong numbers on the core. pto-plan-memory never makes one: it
// gives such an op a buffer of its own (tests/lit/passes/pto-plan-memory/plan.mlir).

wsp.kernel @k(x: in memref<8x8xf32>, y: out memref<8x8xf32>) unit(vector) cost(1) attributes {tile = @f}
func.func @f(%x: memref<8x8xf32>, %y: memref<8x8xf32>) attributes {pto.func_type = #pto.func_type<incore>, pto.memory = {vec = 256 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %t = pto.load %x {pto.addr = 0 : i64} : memref<8x8xf32> -> !pto.tile<8x8xf32, vec>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %t) -> (!pto.tile<8x8xf32, vec>) {
    // CHECK: tile_inplace.mlir:[[# @LINE + 1]]:10: error: 'pto.transpose' op pto.transpose: pto-plan-memory placed its result on the buffer of %a, which it reads: not computable in place
    %b = pto.transpose %a {pto.addr = 0 : i64} : !pto.tile<8x8xf32, vec> -> !pto.tile<8x8xf32, vec>
    scf.yield %b : !pto.tile<8x8xf32, vec>
  }
  pto.store %r, %y : !pto.tile<8x8xf32, vec>, memref<8x8xf32>
  func.return
}
wsp.workload @w(%x: memref<?x8x8xf32>, %y: memref<?x8x8xf32>, %n: index) {
  %d = wsp.dense_dyn %n
  wsp.parallel_for %b in %d named("b") : !wsp.dense_dyn {
    %xv = wsp.view %x[%b] : memref<?x8x8xf32> -> memref<8x8xf32>
    %yv = wsp.view %y[%b] : memref<?x8x8xf32> -> memref<8x8xf32>
    wsp.task @k() resources(%xv, %yv : memref<8x8xf32>, memref<8x8xf32>)
  }
}
