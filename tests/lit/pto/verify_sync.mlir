// RUN: PTO_VERIFY_DIAG

// Pipe synchronization rules.

// A flag is between two different pipes ...
func.func @f() {
  pto.set_flag V -> V, 0
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:3: error: 'pto.set_flag' op a flag is between two different pipes other than ALL, got V -> V
  func.return
}
// -----
// ... never ALL (a barrier is for that) ...
func.func @f() {
  pto.wait_flag ALL -> V, 0
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:3: error: 'pto.wait_flag' op a flag is between two different pipes other than ALL, got ALL -> V
  func.return
}
// -----
// ... with an event id 0..7.
func.func @f() {
  pto.set_flag MTE2 -> V, 8
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:3: error: 'pto.set_flag' op event ids are 0..7, got 8
  func.return
}
// -----
func.func @f() {
  pto.wait_flag MTE2 -> V, -1
// CHECK: {{.*}}.mlir:[[# @LINE - 1]]:3: error: 'pto.wait_flag' op event ids are 0..7, got -1
  func.return
}
