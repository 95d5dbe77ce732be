// RUN: pto-opt %s -p 'wsp-to-tg{schedule=s2}' 2>&1 | FileCheck %s

// With several schedules for one workload, the option picks one; the others are removed
// with a warning (their workload is gone).

wsp.workload @w(%n: index) {
}
sched.schedule @s1 for @w {
  sched.streams 1
}
sched.schedule @s2 for @w {
  sched.streams 2
}
// CHECK: warning: schedule @s1 is not applied: wsp-to-tg{schedule=s2} chose another; removed
// CHECK: tg.program @w(%n: index) config {streams = 2 : i64} {
// CHECK-NOT: sched.schedule
