// RUN: not pto-opt %s --split-input-file -p wsp-to-tg 2>&1 | FileCheck %s
// RUN: not pto-opt %s -p 'wsp-to-tg{calls=sideways}' 2>&1 | FileCheck %s --check-prefix=OPTION

// OPTION: error: wsp-to-tg: calls must be inline or nested, got 'sideways'

wsp.workload @w(%n: index) {
}
sched.schedule @s1 for @w {
  sched.streams 1
}
sched.schedule @s2 for @w {
  sched.streams 2
}
// CHECK: error: workload @w has several schedules (@s1, @s2); choose one with wsp-to-tg{schedule=NAME}

// -----

wsp.workload @a(%n: index) {
  wsp.call @b(%n : index)
}
wsp.workload @b(%n: index) {
  wsp.call @a(%n : index)
}
// CHECK: error: recursive calls cannot be lowered: @a -> @b -> @a
