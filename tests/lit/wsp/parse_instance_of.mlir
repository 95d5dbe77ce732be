// RUN: pto-opt %s --parsing-diagnostics | FileCheck %s

// instance_of names the generic kernel an instance was made from: a string.
wsp.kernel @k_4xf32(x: in memref<4xf32>) unit(vector) attributes {instance_of = 3 : i64}

// CHECK: error: instance_of is the generic kernel's name, a string ("scale")
