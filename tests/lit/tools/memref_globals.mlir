// memref.global's initial value must have its type, and memref.get_global the global's type,
// as in MLIR (xDSL checked neither: a 3-element value of a 2^31-element global failed in
// tg-materialize as an internal error; found by pto-fuzz).
// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// expected-error@+1 {{'memref.global' op initial value expected to be of type tensor<2147483647xindex>, but was of type tensor<3xindex>}}
"memref.global"() <{sym_name = "rows", type = memref<2147483647xindex>, initial_value = dense<[2, 0, 1]> : tensor<3xindex>, sym_visibility = "private", constant}> : () -> ()

// -----

"memref.global"() <{sym_name = "rows", type = memref<3xindex>, initial_value = dense<[2, 0, 1]> : tensor<3xindex>, sym_visibility = "private", constant}> : () -> ()
func.func @f() {
  // expected-error@+1 {{'memref.get_global' op result type memref<4xindex> does not match type memref<3xindex> of the global memref @rows}}
  %r = memref.get_global @rows : memref<4xindex>
  func.return
}

// -----

// A splat and a matching read verify.
// CHECK: memref.get_global @seven : memref<2x2xindex>
"memref.global"() <{sym_name = "seven", type = memref<2x2xindex>, initial_value = dense<7> : tensor<2x2xindex>, sym_visibility = "private", constant}> : () -> ()
func.func @g() {
  %r = memref.get_global @seven : memref<2x2xindex>
  func.return
}
