// RUN: pto-opt %s -p tg-to-runtime-calls | FileCheck %s
// RUN: pto-opt %s -p tg-to-runtime-calls | PTO_UPSTREAM | FileCheck %s --check-prefix=UPSTREAM

// Before: a loop whose step is an argument, and a signed division by an argument.
// After: what native code must not do is checked first (pto_tg_check_failed, with the
// check's number in pto.checks): a step that is not positive runs no iteration, a division
// by zero or the most negative value by -1 is made by one.

wsp.kernel @k(q: index) unit(vector)

tg.program @p(%n: index, %s: index, %d: i64) {
  %c0 = arith.constant 0 : index
  scf.for %i = %c0 to %n step %s {
    %x = arith.index_cast %i : index to i64
    %q = arith.divsi %x, %d : i64
    %qi = arith.index_cast %q : i64 to index
    tg.task @k(%qi : index) resources() pool(vector)
  }
}

// CHECK:      pto.checks = ["{{.*}}checks.mlir:15:10: arith.divsi: division by zero", "{{.*}}checks.mlir:15:10: arith.divsi: overflow (the most negative value by -1)", "{{.*}}checks.mlir:13:3: scf.for: the step is not positive"]
// CHECK:      %[[BAD:.*]] = arith.cmpi sle, %s, %{{.*}} : index
// CHECK-NEXT: scf.if %[[BAD]] {
// CHECK-NEXT:   func.call @pto_tg_check_failed(%ctx, %{{.*}}) : (index, index) -> ()
// CHECK-NEXT: }
// CHECK-NEXT: %[[UB:.*]] = arith.select %[[BAD]], %c0, %n : index
// CHECK-NEXT: %[[STEP:.*]] = arith.select %[[BAD]], %{{.*}}, %s : index
// CHECK-NEXT: func.call @pto_tg_loop_tasks(%ctx, %c0, %[[UB]], %[[STEP]]) : (index, index, index, index) -> ()
// CHECK-NEXT: scf.for %i = %c0 to %[[UB]] step %[[STEP]] {
// CHECK:        %[[ZERO:.*]] = arith.cmpi eq, %d, %{{.*}} : i64
// CHECK:        %[[MIN:.*]] = arith.constant -9223372036854775808 : i64
// CHECK:        %[[OVF:.*]] = arith.andi
// CHECK:        %[[EITHER:.*]] = arith.ori %[[ZERO]], %[[OVF]] : i1
// CHECK:        %[[SAFE:.*]] = arith.select %[[EITHER]], %{{.*}}, %d : i64
// CHECK-NEXT:   %q = arith.divsi %x, %[[SAFE]] : i64

// UPSTREAM: parsed, verified and read back the same by MLIR
