// RUN: not pto-opt %s -t ascend -o %t 2>&1 | filecheck %s

// What a tile function holds that has no Ascend C++ form is an error at that op (pto-opt:
// one located line, exit status 1; tests/test_ascend_tile.py has the other cases).

wsp.kernel @k(x: in memref<16xf32>) unit(vector) cost(1) attributes {tile = @k_tile}
func.func @k_tile(%x: memref<16xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %c0 = arith.constant 0 : index
  // CHECK: tile_errors.mlir:[[# @LINE + 1]]:8: error: 'scf.while' op scf.while has no Ascend tile C++ form: use scf.for or scf.if
  %r = scf.while (%i = %c0) : (index) -> index {
    %f = arith.constant false
    scf.condition(%f) %i : index
  } do {
  ^bb0(%j: index):
    scf.yield %j : index
  }
  func.return
}
wsp.workload @w(%x: memref<?x16xf32>, %n: index) {
  %d = wsp.dense_dyn %n
  wsp.parallel_for %b in %d named("b") : !wsp.dense_dyn {
    %v = wsp.view %x[%b] : memref<?x16xf32> -> memref<16xf32>
    wsp.task @k() resources(%v : memref<16xf32>)
  }
}
