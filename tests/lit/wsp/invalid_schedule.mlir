// RUN: pto-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// The schedule of a wsp.call is a sched.schedule for the callee. (A schedule name that
// resolves to nothing, or to something else than a schedule: invalid_exprs.mlir.)
// Each chunk's checks start at the separator line pto-opt prints between chunks, so a chunk
// that gives no error fails the test even where its message repeats.

builtin.module {
  wsp.workload @inner() level(npu) {
  }
  wsp.workload @other() level(npu) {
  }
  sched.schedule @s for @other {
  }
  wsp.workload @w() {
    wsp.call @inner() schedule(@s)
  }
}

// CHECK: error: 'wsp.call' op schedule @s is not a schedule for @inner

// -----
// CHECK: //{{ }}-----

builtin.module {
  wsp.workload @inner() level(npu) {
  }
  wsp.workload @w() {
    wsp.call @inner() schedule(@w)
  }
}

// CHECK: error: 'wsp.call' op call refers to unknown schedule @w

// -----
// CHECK: //{{ }}-----

builtin.module {
  wsp.kernel @k()
  wsp.workload @inner() level(npu) {
  }
  wsp.workload @w() {
    wsp.call @inner() schedule(@k)
  }
}

// CHECK: error: 'wsp.call' op call refers to unknown schedule @k

// -----
// CHECK: //{{ }}-----

// The callee is checked before the schedule.
builtin.module {
  wsp.workload @inner() level(npu) {
  }
  sched.schedule @s for @inner {
  }
  wsp.workload @w() {
    wsp.call @inner() schedule(@s)
    wsp.call @nothere() schedule(@s)
  }
}

// CHECK: error: 'wsp.call' op call refers to unknown workload @nothere
