// RUN: pto-opt %s -p 'wsp-to-tg{calls=nested schedule=fast}' 2>&1 | FileCheck %s

// With calls=nested a call runs the callee's program, lowered with the one schedule applied
// to the callee (here the schedule= option's @fast): a call naming another schedule cannot
// have it, and the pass says so at the call.

wsp.kernel @k(i: index) unit(vector)
wsp.workload @main(%n: index) {
  wsp.call @leaf(%n : index) schedule(@slow)
}
wsp.workload @leaf(%i: index) level(npu) {
  wsp.task @k(%i : index) resources()
}
sched.schedule @fast for @leaf {
  sched.streams 4
}
sched.schedule @slow for @leaf {
  sched.streams 1
}

// CHECK: call_schedule_nested.mlir:9:3: warning: the call's schedule(@slow) is not applied: with calls=nested it runs the program of @leaf, lowered with that workload's own schedule (calls=inline applies it)
// CHECK: tg.call @leaf(%n : index)
// CHECK: tg.program @leaf(%i: index) config {streams = 4 : i64}

// Inlined (the default), the call has its schedule; @leaf's program has @fast.
// RUN: pto-opt %s -p 'wsp-to-tg{schedule=fast}' 2>&1 | FileCheck %s --check-prefix=INLINE
// INLINE-NOT: is not applied
// INLINE: warning: schedule @slow of this call sets streams, which hold for a whole program
// INLINE-NOT: is not applied
// INLINE: tg.program @main
