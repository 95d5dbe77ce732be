// RUN: not pto-opt %s -p wsp-to-tg 2>&1 | FileCheck %s

// A key reading a float task parameter as an index (integer parameters are cast).

wsp.kernel @k(b: index, n: f32)
wsp.workload @w(%n: index, %m: f32) {
  %bs = wsp.dense_dyn %n
  wsp.parallel_for %b in %bs named("b") : !wsp.dense_dyn {
    wsp.task @k(%b, %m : index, f32) resources()
  }
}
sched.schedule @s for @w {
  // CHECK: key_errors.mlir:[[# @LINE + 1]]:3: error: 'sched.dispatch' op the dispatch key reads parameter 'n' as index, but task @k passes f32
  sched.dispatch dispatch_by key(%x = param("n") : index) {
    sched.yield %x : index
  }
}
