// RUN: PTO_VERIFY_DIAG

// InCore scope rules (seed 003 ScopeStmt): where a scope may stand, and its terminator.

// An InCore scope is orchestration code's: not inside an InCore function ...
func.func @f() attributes {pto.func_type = #pto.func_type<incore>} {
  pto.incore_scope {
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:3: error: 'pto.incore_scope' op an InCore scope is orchestration code's: @f is incore
    pto.yield
  }
  func.return
}
// -----
// ... nor inside another scope ...
func.func @f() {
  pto.incore_scope {
    pto.incore_scope {
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:5: error: 'pto.incore_scope' op an InCore scope cannot hold another
      pto.yield
    }
    pto.yield
  }
  func.return
}
// -----
// ... and always inside a function.
builtin.module {
  pto.incore_scope {
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:3: error: 'pto.incore_scope' op an InCore scope is part of a func.func
    pto.yield
  }
}
// -----
// Its pto.yield gives its result types.
func.func @f(%x: index) {
  %r = pto.incore_scope -> (i32) {
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:8: error: 'pto.incore_scope' op pto.yield gives the scope's result types
    pto.yield %x : index
  }
  func.return
}
// -----
// pto.yield ends a scope only.
func.func @f() {
  pto.yield
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:3: error: 'pto.yield' op 'pto.yield' expects parent op 'pto.incore_scope'
}
// -----
// A scope's body ends with a terminator, pto.yield (xDSL's own region check says so first).
func.func @f() {
  pto.incore_scope {
    %c = arith.constant 0 : index
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:10: error: 'arith.constant' op Operation arith.constant terminates block in single-block region but is not a terminator
  }
  func.return
}
// -----
// The function type is a #pto.func_type attribute, not a string.
func.func @f() attributes {pto.func_type = "incore"} {
  pto.incore_scope {
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:3: error: 'pto.incore_scope' op @f's pto.func_type is a #pto.func_type<...>, got "incore"
    pto.yield
  }
  func.return
}
