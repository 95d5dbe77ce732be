// An op of a dialect nobody registered says so; --allow-unregistered-dialect accepts it.
// RUN: not pto-opt %s 2>&1 | FileCheck %s
// RUN: pto-opt %s --allow-unregistered-dialect | FileCheck %s --check-prefix=ALLOWED

"nosuch.op"() : () -> ()

// CHECK-NOT: Traceback
// CHECK: unknown_dialect.mlir:5:1: error: Operation nosuch.op is not registered (there is no dialect 'nosuch')
// CHECK-NOT: Traceback

// ALLOWED: "nosuch.op"() : () -> ()
