// RUN: pto-opt %s -p wsp-to-tg 2>&1 | FileCheck %s
// RUN: pto-opt %s -p 'wsp-to-tg{calls=nested}' 2>&1 | FileCheck %s --check-prefix=NESTED

// A call's own schedule, `wsp.call @leaf(...) schedule(@s)`, places the tasks of the body
// it inlines: @s's dispatch, stream, priority and pool keys, not the caller's. Its runtime
// configuration (streams, window, ...) holds for a whole program: where it differs from the
// caller's, a warning says the caller's stays. With calls=nested the call runs @leaf's
// program, which carries the schedule bound to @leaf: a call naming another is said.

wsp.kernel @k(i: index) unit(vector)
wsp.workload @main(%n: index) {
  %is = wsp.dense_dyn %n
  wsp.parallel_for %i in %is named("i") : !wsp.dense_dyn {
    wsp.call @leaf(%i : index) schedule(@s)
    wsp.call @leaf(%i : index)
    wsp.call @other(%i : index) schedule(@s_other)
  }
}
wsp.workload @leaf(%i: index) level(npu) {
  %js = wsp.dense 2
  wsp.parallel_for %j in %js named("j") : !wsp.dense<2> {
    wsp.task @k(%j : index) resources()
  }
}
wsp.workload @other(%i: index) level(npu) {
  %ks = wsp.dense 3
  wsp.parallel_for %q in %ks named("q") : !wsp.dense<3> {
    wsp.task @k(%q : index) resources()
  }
}
sched.schedule @s for @leaf {
  sched.dispatch affinity("j")
  sched.streams 2
}
sched.schedule @main_sched for @main {
  sched.dispatch affinity("i")
}
sched.schedule @s_other for @other {
  sched.issue priority key(%q = "q") {
    sched.yield %q : index
  }
}

// CHECK: call_schedule.mlir:14:5: warning: schedule @s of this call sets streams, which hold for a whole program: the tasks of @leaf take @s's dispatch, stream, priority and pool, and run with @main's configuration
// CHECK: call_schedule.mlir:16:5: warning: schedule @s_other of this call sets ready, which hold for a whole program: the tasks of @other take @s_other's dispatch, stream, priority and pool, and run with @main's configuration
// CHECK-LABEL: tg.program @main(%n: index) config {dispatch = "affinity"} {
// CHECK:         scf.for %i =
// CHECK:           scf.for %j =
// CHECK-NEXT:        tg.task @k(%j : index) resources() at(i = %i, j = %j) pool(vector) target(%j)
// CHECK:           scf.for %j{{.*}} =
// CHECK-NEXT:        tg.task @k(%j{{.*}} : index) resources() at(i = %i, j = %j{{.*}}) pool(vector) target(%i)
// CHECK:           scf.for %q =
// CHECK-NEXT:        tg.task @k(%q : index) resources() at(i = %i, q = %q) pool(vector) target(%i) priority(%q)

// NESTED-NOT: warning: the call's schedule(@s)
// NESTED-NOT: warning: the call's schedule(@s_other)
// NESTED-LABEL: tg.program @main
// NESTED: tg.call @leaf
// NESTED: tg.program @leaf(%i: index) config {dispatch = "affinity", streams = 2 : i64}
