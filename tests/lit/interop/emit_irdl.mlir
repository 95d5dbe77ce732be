// pto-opt --emit-irdl prints the IRDL of all our dialects (no input needed); upstream MLIR
// loads it (upstream_irdl.mlir checks that when the `mlir` extra is installed).
// RUN: pto-opt --emit-irdl | filecheck %s

// CHECK:      builtin.module {
// CHECK-NEXT:   irdl.dialect @wsp {
// CHECK-NEXT:     irdl.type @dense_type {
// CHECK-NEXT:       // !wsp.dense, spelled !wsp.dense_type upstream (an op is wsp.dense)
// CHECK-NEXT:       %0 = irdl.base "#builtin.integer"
// CHECK-NEXT:       irdl.parameters(size: %0)
// CHECK-NEXT:     }
// CHECK:          irdl.operation @dense_dyn {
// CHECK-NEXT:       // traits (IRDL has none): Pure
// CHECK-NEXT:       %0 = irdl.base "!builtin.index"
// CHECK-NEXT:       %1 = irdl.base @wsp::@dense_dyn_type
// CHECK-NEXT:       irdl.operands(size: %0)
// CHECK-NEXT:       irdl.results(axis: %1)
// CHECK-NEXT:     }
// CHECK:          irdl.operation @cond {
// CHECK-NEXT:       // traits (IRDL has none): WorkloadExpr
// CHECK-NEXT:       %0 = irdl.is i1
// CHECK-NEXT:       %r0 = irdl.region with size 1
// CHECK-NEXT:       %r1 = irdl.region with size 1
// CHECK-NEXT:       irdl.operands(predicate: %0)
// CHECK-NEXT:       irdl.regions(then_region: %r0, else_region: %r1)
// CHECK-NEXT:     }
// CHECK:        irdl.dialect @csp {
// CHECK:          irdl.operation @channel {
// CHECK:            irdl.attributes {"sym_name" = %0, "element_type" = %1, "capacity" = %2}
// CHECK:        irdl.dialect @sched {
// CHECK:        irdl.dialect @tg {
// CHECK:          irdl.attribute @region {
// CHECK:            irdl.parameters(tensor: %0, offsets: %1, sizes: %2, strides: %3, access: %4)
