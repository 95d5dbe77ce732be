// RUN: pto-opt %s -p wsp-inline-calls | FileCheck %s --check-prefixes=CHECK,KEEP
// RUN: pto-opt %s -p 'wsp-inline-calls{inline-scheduled=false}' | FileCheck %s --check-prefixes=CHECK,KEEP
// RUN: pto-opt %s -p 'wsp-inline-calls{inline-scheduled=true}' | FileCheck %s --check-prefixes=CHECK,INLINE

// A call with schedule(@s) runs its callee under @s. Inlined, its tasks would be scheduled
// by the caller's schedule and the override lost, so by default the call stays; the
// unscheduled call next to it is inlined. inline-scheduled=true inlines both.

wsp.kernel @k(i: index) unit(vector)
wsp.workload @main(%n: index) {
  wsp.call @leaf(%n : index) schedule(@s)
  wsp.call @leaf(%n : index)
}
wsp.workload @leaf(%i: index) level(npu) {
  wsp.task @k(%i : index) resources()
}
sched.schedule @s for @leaf {
  sched.dispatch round_robin(2)
}

// CHECK:       wsp.workload @main(%n: index) {
// KEEP-NEXT:     wsp.call @leaf(%n : index) schedule(@s)
// INLINE-NEXT:   wsp.task @k(%n : index) resources()
// CHECK-NEXT:    wsp.task @k(%n : index) resources()
// CHECK-NEXT:  }
// CHECK-NEXT:  wsp.workload @leaf(%i: index) level(npu) {
// CHECK:       sched.schedule @s for @leaf {
