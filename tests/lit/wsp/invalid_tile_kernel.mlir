// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// A kernel's tile function (`{tile = @f}`) must exist, be an InCore func.func and take the
// kernel's parameters.

wsp.kernel @k(x: in memref<4xf32>) unit(vector) attributes {tile = @missing}

// CHECK: error: 'wsp.kernel' op kernel's tile function @missing is not a func.func of the module

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(x: in memref<4xf32>) unit(vector) attributes {tile = @f}
func.func @f(%x: memref<4xf32>) {
  func.return
}

// CHECK: error: 'wsp.kernel' op kernel's tile function @f must be InCore (attributes {pto.func_type = #pto.func_type<incore>})

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(x: in memref<4xf32>, n: index) unit(vector) attributes {tile = @f}
func.func @f(%x: memref<4xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  func.return
}

// CHECK: error: 'wsp.kernel' op kernel's tile function @f must take the kernel's parameters (memref<4xf32>, index) and return nothing, got (memref<4xf32>) -> ()
