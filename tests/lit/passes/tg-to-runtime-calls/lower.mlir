// RUN: pto-opt %s -p tg-to-runtime-calls | FileCheck %s
// RUN: pto-opt %s -p tg-to-runtime-calls | PTO_UPSTREAM | FileCheck %s --check-prefix=UPSTREAM

// Before: a tg.program with an ordered loop (tg.ordered, tg.order_point), a task on a
// rank-reducing subview of a subview, tg.seq, a dynamic pool, an i64 scalar, a load and a
// division.
// After: a func.func of upstream dialects whose first argument is the runtime context; tasks,
// scopes and ordering points are calls of the runtime core's C API; the region is in the
// root tensor's index space (row 2*i+1, columns j..j+3); the load is bounds-checked, the
// division by a value that may be zero checked (a constant divisor needs no check). The task
// is one pto_tg_task call: its site's entry in the site table @__pto_sites_p (site 0, kernel
// 0, domain 0; pool, target, stream 0, priority; 11: the task gives pool, target and priority;
// 2 scalars, 1 coordinate, 1 region: tensor 0, inout, rank 2) and, in its slots of a stack
// array made once, its values: pool, target, priority, the scalars, the coordinate, then per
// dimension of its region offset, size and stride (the constants stored once).

wsp.kernel @k(i: index, x: i64, t: inout memref<4xf32>) unit(vector)

tg.program @p(%X: memref<8x16xf32>, %n: index, %lens: memref<?xindex>, %x: i64) config {workers = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  tg.ordered {
    scf.for %i = %c0 to %n step %c1 {
      %j = memref.load %lens[%i] : memref<?xindex>
      %rows = memref.subview %X[1, 0] [4, 16] [2, 1] : memref<8x16xf32> to memref<4x16xf32, strided<[32, 1], offset: 16>>
      %row = memref.subview %rows[%i, %j] [1, 4] [1, 1] : memref<4x16xf32, strided<[32, 1], offset: 16>> to memref<4xf32, strided<[1], offset: ?>>
      %s = tg.seq
      %pool = arith.remui %s, %c2 : index
      %prio = arith.divui %i, %n : index
      tg.task @k(%i, %x : index, i64) resources(%row : memref<4xf32, strided<[1], offset: ?>>) access(inout) at(i = %i) pool(%pool) target(%s) priority(%prio)
      tg.order_point
    }
  }
}

// CHECK:      func.func private @pto_tg_task(index, index, index) -> ()
// CHECK:      func.func private @pto_tg_seq(index) -> index
// CHECK:      "memref.global"() <{sym_name = "__pto_sites_p", type = memref<14xi64>, initial_value = dense<[0, 0, 0, 0, 0, 0, 0, 11, 2, 1, 1, 0, 2, 2]> : tensor<14xi64>, sym_visibility = "private", constant}>
// CHECK:      func.func @p(%ctx: index, %X: memref<8x16xf32>, %n: index, %lens: memref<?xindex>, %x: i64)
// CHECK-SAME:   pto.arg_names = ["X", "n", "lens", "x"], pto.kernels = ["k"], pto.coords = [["i"]]
// CHECK-SAME:   pto.checks = ["{{.*}}lower.mlir:25:12: memref.load of lens: an index is out of the bound data", "{{.*}}lower.mlir:30:15: arith.divui: division by zero"]
// CHECK-SAME:   pto.scalars = ["ii"], pto.kept = {{\[\[\[}}1 : i64{{\]\]\]}}, pto.reads = ["lens"]
// CHECK-SAME:   pto.config = {workers = 2 : i64}, llvm.emit_c_interface
// CHECK-NOT:    tg.
// CHECK-DAG:    %[[C3:[0-9]+]] = arith.constant 3 : index
// CHECK-DAG:    %[[C4:[0-9]+]] = arith.constant 4 : index
// CHECK-DAG:    %[[C5:[0-9]+]] = arith.constant 5 : index
// CHECK-DAG:    %[[C6:[0-9]+]] = arith.constant 6 : index
// CHECK-DAG:    %[[C7:[0-9]+]] = arith.constant 7 : index
// CHECK-DAG:    %[[C8:[0-9]+]] = arith.constant 8 : index
// CHECK-DAG:    %[[C9:[0-9]+]] = arith.constant 9 : index
// CHECK-DAG:    %[[C10:[0-9]+]] = arith.constant 10 : index
// CHECK-DAG:    %[[C11:[0-9]+]] = arith.constant 11 : index
// CHECK:        %sites = memref.get_global @__pto_sites_p : memref<14xi64>
// CHECK-NEXT:   %values = memref.alloca() : memref<12xindex>
// CHECK-NEXT:   %sites_at = "memref.extract_aligned_pointer_as_index"(%sites)
// CHECK-NEXT:   %values_at = "memref.extract_aligned_pointer_as_index"(%values)
// CHECK-DAG:    %[[C0:[0-9]+]] = arith.constant 0 : index
// CHECK-DAG:    %[[C1:[0-9]+]] = arith.constant 1 : index
// CHECK-DAG:    %[[C2:[0-9]+]] = arith.constant 2 : index
// The region's constant sizes and strides: stored once, before the ordered scope holding the task.
// CHECK:        memref.store %[[C1]], %values[%[[C7]]] : memref<12xindex>
// CHECK-NEXT:   memref.store %[[C2]], %values[%[[C8]]] : memref<12xindex>
// CHECK-NEXT:   memref.store %[[C4]], %values[%[[C10]]] : memref<12xindex>
// CHECK-NEXT:   memref.store %[[C1]], %values[%[[C11]]] : memref<12xindex>
// CHECK-NEXT:   func.call @pto_tg_ordered_enter(%ctx) : (index) -> ()
// CHECK:        scf.for %i =
// CHECK:          %[[IN:.*]] = arith.cmpi ult, %i, %{{.*}} : index
// CHECK-NEXT:     %j = scf.if %[[IN]] -> (index) {
// CHECK-NEXT:       %{{.*}} = memref.load %lens[%i] : memref<?xindex>
// CHECK:          } else {
// CHECK-NEXT:       func.call @pto_tg_check_failed(%ctx, %{{.*}}) : (index, index) -> ()
// CHECK:          %[[TWOI:.*]] = arith.muli %i, %{{.*}} : index
// CHECK-NEXT:     %[[ROW:.*]] = arith.addi %{{.*}}, %[[TWOI]] : index
// CHECK-NEXT:     %[[S:.*]] = func.call @pto_tg_seq(%ctx) : (index) -> index
// CHECK-NEXT:     %pool = arith.remui %[[S]], %c2 : index
// CHECK-NEXT:     %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:     %[[ISZ:.*]] = arith.cmpi eq, %n, %[[Z]] : index
// CHECK-NEXT:     scf.if %[[ISZ]] {
// CHECK-NEXT:       func.call @pto_tg_check_failed(%ctx, %{{.*}}) : (index, index) -> ()
// CHECK-NEXT:     }
// CHECK-NEXT:     %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:     %[[SAFE:.*]] = arith.select %[[ISZ]], %[[ONE]], %n : index
// CHECK-NEXT:     %prio = arith.divui %i, %[[SAFE]] : index
// CHECK-NEXT:     %[[X:.*]] = arith.index_cast %x : i64 to index
// CHECK-NEXT:     memref.store %pool, %values[%[[C0]]] : memref<12xindex>
// CHECK-NEXT:     memref.store %[[S]], %values[%[[C1]]] : memref<12xindex>
// CHECK-NEXT:     memref.store %prio, %values[%[[C2]]] : memref<12xindex>
// CHECK-NEXT:     memref.store %i, %values[%[[C3]]] : memref<12xindex>
// CHECK-NEXT:     memref.store %[[X]], %values[%[[C4]]] : memref<12xindex>
// CHECK-NEXT:     memref.store %i, %values[%[[C5]]] : memref<12xindex>
// CHECK-NEXT:     memref.store %[[ROW]], %values[%[[C6]]] : memref<12xindex>
// CHECK-NEXT:     memref.store %j, %values[%[[C9]]] : memref<12xindex>
// CHECK-NEXT:     func.call @pto_tg_task(%ctx, %sites_at, %values_at) : (index, index, index) -> ()
// CHECK-NEXT:     func.call @pto_tg_order_point(%ctx) : (index) -> ()
// CHECK-NEXT:   }
// CHECK-NEXT:   func.call @pto_tg_ordered_exit(%ctx) : (index) -> ()
// CHECK-NEXT:   func.return
// CHECK-NOT:  wsp.kernel

// UPSTREAM: parsed, verified and read back the same by MLIR
