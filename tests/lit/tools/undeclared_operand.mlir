// An operand defined inside its own op's region is not in scope for the op: an error at the
// operand, as mlir-opt says it, for every op with a custom syntax (xDSL's parser leaves a
// placeholder that crashed the verifier).
// RUN: pto-opt %s --split-input-file --parsing-diagnostics | FileCheck %s
// RUN: not pto-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=EXIT
// EXIT-NOT: internal error

func.func @f() {
  // CHECK: undeclared_operand.mlir:[[# @LINE + 1]]:10: error: use of undeclared SSA value %t: a value defined inside the op's own region is out of scope for its operands
  scf.if %t {
    %t = arith.constant true
  }
  func.return
}

// -----
// CHECK: //{{ }}-----

// A use before the definition in the same block is a forward reference, resolved as ever.
// CHECK: func.func @g
func.func @g() {
  "test.op"(%x) : (index) -> ()
  %x = arith.constant 1 : index
  func.return
}
