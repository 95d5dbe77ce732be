// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Verifier and parser errors of typed scalar parameters and generic-kernel instances.
// Each chunk's checks start at the separator line pto-opt prints between chunks.

// A scalar parameter's type is one every target passes by value.
wsp.kernel @k(n: i8, x: in memref<4xf32>) unit(vector)

// CHECK: error: 'wsp.kernel' op scalar parameter 'n' must be one of index, i1, i32, i64, f16, f32, f64, got i8

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(t: !wsp.task) unit(vector)

// CHECK: error: 'wsp.kernel' op scalar parameter 't' must be one of index, i1, i32, i64, f16, f32, f64, got !wsp.task

// -----
// CHECK: //{{ }}-----

// A task passes each scalar with its parameter's type: no implicit conversion.
wsp.kernel @k(alpha: f32) unit(vector)
wsp.workload @w() {
  %a = arith.constant 2.500000e+00 : f64
  wsp.task @k(%a : f64) resources()
}

// CHECK: error: 'wsp.task' op parameter #0 of kernel @k must be f32, got f64

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(flag: i1, n: i32) unit(vector)
wsp.workload @w() {
  %c = arith.constant 1 : index
  %t = arith.constant true
  wsp.task @k(%t, %c : i1, index) resources()
}

// CHECK: error: 'wsp.task' op parameter #1 of kernel @k must be i32, got index
