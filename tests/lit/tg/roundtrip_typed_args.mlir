// RUN: pto-opt %s | FileCheck %s --match-full-lines
// RUN: pto-opt %s | pto-opt | FileCheck %s --match-full-lines
// RUN: pto-opt %s --print-op-generic | pto-opt | FileCheck %s --match-full-lines

// A static graph's typed scalar args: index bare, i1 true/false, `value : type` otherwise.

wsp.kernel @k(alpha: f32, beta: f64, h: f16, n: i32, m: i64, flag: i1, i: index) unit(vector)
tg.graph @g() {
  tg.node 0 task @k args(2.5 : f32, -0.125 : f64, 1.5 : f16, -3 : i32, 1099511627776 : i64, false, 7) pool(vector) fanin(0) fanout(1)
  tg.node 1 task @k args(0.1 : f32, 1.0e+300 : f64, 0.0 : f16, 2147483647 : i32, -1 : i64, true, 0) pool(vector) fanin(1) fanout()
}

// CHECK:      builtin.module {
// CHECK-NEXT:   wsp.kernel @k(alpha: f32, beta: f64, h: f16, n: i32, m: i64, flag: i1, i: index) unit(vector)
// CHECK-NEXT:   tg.graph @g() {
// CHECK-NEXT:     tg.node 0 task @k args(2.5 : f32, -0.125 : f64, 1.5 : f16, -3 : i32, 1099511627776 : i64, false, 7) pool(vector) fanin(0) fanout(1)
// CHECK-NEXT:     tg.node 1 task @k args(0.1 : f32, 1.0e+300 : f64, 0.0 : f16, 2147483647 : i32, -1 : i64, true, 0) pool(vector) fanin(1) fanout()
// CHECK-NEXT:   }
// CHECK-NEXT: }
