// RUN: pto-opt %s -p 'wsp-inline-calls{remove-dead-callees=true}' | FileCheck %s
// RUN: pto-opt %s -p 'wsp-inline-calls{remove-dead-callees=true inline-scheduled=true}' | FileCheck %s --check-prefix=ALL
// RUN: pto-opt %s -p wsp-inline-calls | FileCheck %s --check-prefix=KEEP

// remove-dead-callees=true erases the workloads that were called and that no call or
// schedule references any more. Workloads nobody called (@main, @other_entry) are entry
// points and stay. @scheduled stays: a kept call and its schedule name it. @via_kept was
// only called from @scheduled's body, where that call was inlined: it goes, as do @inlined
// and @nested.

wsp.kernel @k() unit(vector)
wsp.workload @main() {
  wsp.call @inlined()
  wsp.call @scheduled() schedule(@s)
}
wsp.workload @other_entry() {
}
wsp.workload @inlined() level(npu) {
  wsp.call @nested()
}
wsp.workload @nested() level(npu) {
  wsp.task @k() resources()
}
wsp.workload @scheduled() level(npu) {
  wsp.call @via_kept()
}
wsp.workload @via_kept() level(npu) {
  wsp.task @k() resources()
}
sched.schedule @s for @scheduled {
}

// CHECK:      wsp.workload @main() {
// CHECK-NEXT:   wsp.task @k() resources()
// CHECK-NEXT:   wsp.call @scheduled() schedule(@s)
// CHECK-NEXT: }
// CHECK-NEXT: wsp.workload @other_entry() {
// CHECK-NEXT: }
// CHECK-NEXT: wsp.workload @scheduled() level(npu) {
// CHECK-NEXT:   wsp.task @k() resources()
// CHECK-NEXT: }
// CHECK-NEXT: sched.schedule @s for @scheduled {

// With every call inlined, @scheduled is still the target of @s and stays; @via_kept goes.

// ALL:      wsp.workload @main() {
// ALL-NEXT:   wsp.task @k() resources()
// ALL-NEXT:   wsp.task @k() resources()
// ALL-NEXT: }
// ALL-NEXT: wsp.workload @other_entry() {
// ALL-NEXT: }
// ALL-NEXT: wsp.workload @scheduled() level(npu) {
// ALL-NEXT:   wsp.task @k() resources()
// ALL-NEXT: }
// ALL-NEXT: sched.schedule @s for @scheduled {

// Without the option every workload stays.

// KEEP-COUNT-6: wsp.workload
// KEEP-NOT:     wsp.workload
