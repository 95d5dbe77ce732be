// An unknown pass is an error before any input is read; a near miss gets suggestions.
// RUN: not pto-opt %S/Inputs/add.mlir -p nosuch-pass 2>&1 | FileCheck %s
// RUN: not pto-opt %S/Inputs/add.mlir -p canonicalise 2>&1 | FileCheck %s --check-prefix=NEAR

// CHECK-NOT: Traceback
// CHECK: pto-opt: error: unknown pass 'nosuch-pass'
// CHECK-NOT: Traceback

// NEAR: pto-opt: error: unknown pass 'canonicalise'; did you mean 'canonicalize'
