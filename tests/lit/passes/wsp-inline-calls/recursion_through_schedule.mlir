// RUN: pto-opt %s -p wsp-inline-calls | FileCheck %s

// A cycle through a call that is not inlined (it has a schedule override) is no error.

wsp.kernel @k(i: index) unit(vector)
wsp.workload @p(%n: index) {
  wsp.task @k(%n : index) resources()
  wsp.call @q(%n : index) schedule(@sq)
}
wsp.workload @q(%n: index) {
  wsp.call @p(%n : index)
}
sched.schedule @sq for @q {
}

// CHECK:      wsp.workload @p(%n: index) {
// CHECK-NEXT:   wsp.task @k(%n : index) resources()
// CHECK-NEXT:   wsp.call @q(%n : index) schedule(@sq)
// CHECK-NEXT: }
// CHECK-NEXT: wsp.workload @q(%n: index) {
// CHECK-NEXT:   wsp.task @k(%n : index) resources()
// CHECK-NEXT:   wsp.call @q(%n : index) schedule(@sq)
// CHECK-NEXT: }
