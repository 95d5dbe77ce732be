// RUN: pto-opt %s -p 'wsp-to-tg{schedule=s9}' 2>&1 | FileCheck %s
// RUN: pto-opt %s -p 'wsp-to-tg{schedule=s1},csp-to-tg{schedule=s1}' 2>&1 | FileCheck %s --check-prefix=CHAIN
// RUN: pto-opt %s -p 'csp-to-tg{schedule=s9}' 2>&1 | FileCheck %s --check-prefix=CSP

// A schedule= option that names no schedule of the module is said: a typo would leave the
// workload its only schedule. Not by a pass after another lowering (the schedule the
// option chose was applied and removed there).

wsp.workload @w(%n: index) {
}
sched.schedule @s1 for @w {
  sched.streams 2
}
// CHECK: warning: wsp-to-tg{schedule=s9}: the module has no schedule @s9 (its schedules: @s1)
// CHECK: tg.program @w(%n: index) config {streams = 2 : i64} {

// CHAIN-NOT: warning
// CHAIN: tg.program @w(%n: index) config {streams = 2 : i64} {

// CSP: warning: csp-to-tg{schedule=s9}: the module has no schedule @s9 (its schedules: @s1)
// CSP: sched.schedule @s1 for @w
