// RUN: pto-opt %s --split-input-file --parsing-diagnostics | FileCheck %s

// Parse errors of a tg.node's typed scalar args, at the arg.

wsp.kernel @k(alpha: f32) unit(vector)
tg.graph @g() {
  tg.node 0 task @k args(2.5) pool(vector) fanin(0) fanout()
}

// CHECK: error: a task's scalar arg cannot be 2.5 : index

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(n: i32) unit(vector)
tg.graph @g() {
  tg.node 0 task @k args(5000000000 : i32) pool(vector) fanin(0) fanout()
}

// CHECK: error: 5000000000 : i32: Integer value 5000000000 is out of range for type i32

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(alpha: f16) unit(vector)
tg.graph @g() {
  tg.node 0 task @k args(1.0e+9 : f16) pool(vector) fanin(0) fanout()
}

// CHECK: error: 1000000000.0 : f16 is not a finite f16
