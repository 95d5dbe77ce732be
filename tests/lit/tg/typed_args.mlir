// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// A tg.node's scalar args carry their types: index bare (3), i1 as true/false, others as
// `value : type`. Each must have its kernel parameter's type.

wsp.kernel @k(alpha: f32, n: i32, flag: i1, i: index) unit(vector)
tg.graph @g() {
  tg.node 0 task @k args(2.5 : f32, -3 : i32, false, 7) pool(vector) fanin(0) fanout()
}

// CHECK:      tg.node 0 task @k args(2.5 : f32, -3 : i32, false, 7) pool(vector) fanin(0) fanout()

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(alpha: f32) unit(vector)
tg.graph @g() {
  tg.node 0 task @k args(2.5 : f64) pool(vector) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op node 0 arg #0: kernel @k takes f32, got 2.5 : f64

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(n: i32) unit(vector)
tg.graph @g() {
  tg.node 0 task @k args(3) pool(vector) fanin(0) fanout()
}

// CHECK: error: 'tg.node' op node 0 arg #0: kernel @k takes i32, got 3
