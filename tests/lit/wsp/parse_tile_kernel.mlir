// RUN: pto-opt %s --parsing-diagnostics | FileCheck %s

// tile names the kernel's tile function: a symbol.
wsp.kernel @k(x: in memref<4xf32>) unit(vector) attributes {tile = "f"}

// CHECK: error: tile is the kernel's tile function, a symbol (@f)
