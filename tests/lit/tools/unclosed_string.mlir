// An unclosed string literal is an error at its quote, at once. (xDSL's lexer alone backtracks
// exponentially in the rest of the line: minutes for a line like this one.)
// RUN: not pto-opt %s 2>&1 | FileCheck %s
// RUN: not pto-run %s 2>&1 | FileCheck %s

// CHECK-NOT: Traceback
// CHECK: unclosed_string.mlir:[[# @LINE + 3]]:25: error: End of file reached before closing string literal.
// CHECK-NEXT: func.func @f(%a: memref<"?x32768x64xf32>, %b: memref<?x32768x64xf32>, %c: index, %d: index) {
// CHECK-NEXT: {{^ {24}\^$}}
func.func @f(%a: memref<"?x32768x64xf32>, %b: memref<?x32768x64xf32>, %c: index, %d: index) {
  func.return
}
