// A syntax error is reported at its file:line:col, with the line and a caret.
// RUN: not pto-opt %s 2>&1 | FileCheck %s
// RUN: pto-opt %s --parsing-diagnostics | FileCheck %s

// CHECK-NOT: Traceback
// CHECK: {{.*}}malformed.mlir:[[# @LINE + 3]]:15: error: Expected argument or type
// CHECK-NEXT: func.func @f( {
// CHECK-NEXT: {{^ {14}\^$}}
func.func @f( {
// CHECK-NOT: Traceback
