// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// A kernel's tile function (`{tile = @f}`) must exist, be an InCore func.func and take the
// kernel's parameters; its values are used after their definition.

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

// -----
// CHECK: //{{ }}-----

// A tile function uses each value after its definition (xDSL's parser resolves a name used
// above its definition, and its func.func does not check the order).
wsp.kernel @k(x: in memref<16xf32>) unit(vector) attributes {tile = @f}
func.func @f(%x: memref<16xf32>) attributes {pto.func_type = #pto.func_type<incore>} {
  %t = pto.load %x : memref<16xf32> -> !pto.tile<16xf32, vec>
  %u = pto.exp %v : !pto.tile<16xf32, vec>
  %v = pto.add %t, %u : !pto.tile<16xf32, vec>
  func.return
}

// CHECK: error: 'pto.exp' op %v is not defined before this op in its block or an enclosing one (a value of another region, or used before its definition)
