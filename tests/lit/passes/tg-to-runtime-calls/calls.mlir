// RUN: pto-opt %s -p tg-to-runtime-calls | FileCheck %s
// RUN: pto-opt %s -p 'tg-to-runtime-calls{program=outer}' | FileCheck %s --check-prefix=ONE

// Before: @outer calls @inner with a subview of its tensor and reads a memref.global.
// After: the callee's body is inlined (its region is stated on @outer's tensor, offset by the
// caller's subview); each program is its own func.func; the global data is kept.

wsp.kernel @k(t: out memref<2xf32>) unit(cube)

"memref.global"() <{sym_name = "table", sym_visibility = "private", type = memref<3xindex>, initial_value = dense<[0, 2, 4]> : tensor<3xindex>, constant}> : () -> ()

tg.program @inner(%T: memref<4xf32>) {
  %v = memref.subview %T[2] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 2>>
  tg.task @k() resources(%v : memref<2xf32, strided<[1], offset: 2>>) access(out) pool(cube)
}

tg.program @outer(%A: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  %g = memref.get_global @table : memref<3xindex>
  %o = memref.load %g[%c1] : memref<3xindex>
  %t = memref.subview %A[%o] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: ?>>
  tg.call @inner(%t : memref<4xf32, strided<[1], offset: ?>>)
}

// CHECK:      "memref.global"() <{sym_name = "table", sym_visibility = "private", type = memref<3xindex>, initial_value = dense<[0, 2, 4]> : tensor<3xindex>, constant}>
// CHECK:      "memref.global"() <{sym_name = "__pto_sites_inner", type = memref<14xi64>
// CHECK:      func.func @inner(%ctx: index, %T: memref<4xf32>)
// CHECK:      "memref.global"() <{sym_name = "__pto_sites_outer", type = memref<14xi64>
// CHECK:      func.func @outer(%ctx: index, %A: memref<16xf32>)
// CHECK-SAME:   pto.kernels = ["k"], pto.coords = [[]]
// CHECK-SAME:   pto.checks = ["{{.*}}calls.mlir:20:8: memref.load of @table: an index is out of the bound data"]
// CHECK-SAME:   pto.scalars = [""], pto.kept = {{\[\[\[}}0 : i64{{\]\]\]}}, pto.reads = []
// CHECK-NOT:    tg.call
// CHECK:        %o = scf.if
// CHECK:        %[[OFF:.*]] = arith.addi %o, %{{.*}} : index
// CHECK-NEXT:   memref.store %[[OFF]], %values[%{{.*}}] : memref<3xindex>
// CHECK-NEXT:   memref.store %{{.*}}, %values[%{{.*}}] : memref<3xindex>
// CHECK-NEXT:   memref.store %{{.*}}, %values[%{{.*}}] : memref<3xindex>
// CHECK-NEXT:   func.call @pto_tg_task(%ctx, %sites_at, %values_at)

// ONE-NOT:  @__pto_sites_inner
// ONE-NOT:  func.func @inner
// ONE:      func.func @outer
