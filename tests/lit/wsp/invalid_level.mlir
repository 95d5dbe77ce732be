// RUN: pto-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect | FileCheck %s

// Seed 000 WorkloadLevel: an npu-level (InCore) workload holds no CSP op and calls no
// cpu-level workload, at any depth. (A cpu-level workload may do both.)
// Each chunk's checks start at the separator line pto-opt prints between chunks, so a chunk
// that gives no error fails the test even where its message repeats.

builtin.module {
  wsp.workload @outer() {
  }
  wsp.workload @incore() level(npu) {
    wsp.call @outer()
  }
}

// CHECK: error: 'wsp.workload' op npu-level workload @incore must not call cpu-level workload @outer

// -----
// CHECK: //{{ }}-----

builtin.module {
  wsp.workload @incore(%d: !wsp.dense<4>, %p: i1) level(npu) {
    wsp.parallel_for %i in %d : !wsp.dense<4> {
      wsp.cond %p {
      } else {
        wsp.sequential {
          wsp.call @outer(%i : index)
        }
      }
    }
  }
  wsp.workload @outer(%i: index) level(cpu) {
  }
}

// CHECK: error: 'wsp.workload' op npu-level workload @incore must not call cpu-level workload @outer

// -----
// CHECK: //{{ }}-----

wsp.workload @incore(%t: !wsp.task) level(npu) {
  %i = csp.coord %t[0]
}

// CHECK: error: 'wsp.workload' op npu-level workload @incore must not contain CSP op csp.coord

// -----
// CHECK: //{{ }}-----

// An op of the csp namespace that is not (yet) registered counts too.
wsp.workload @incore(%d: !wsp.dense<4>) level(npu) {
  wsp.for_each %i in %d : !wsp.dense<4> {
    "csp.not_yet_defined"() : () -> ()
  }
}

// CHECK: error: 'wsp.workload' op npu-level workload @incore must not contain CSP op csp.not_yet_defined

// -----
// CHECK: //{{ }}-----

// The same bodies are fine at cpu level; the chunk prints, and the next diagnostic is the
// last chunk's.
builtin.module {
  wsp.workload @outer(%t: !wsp.task) {
    %i = csp.coord %t[0]
    "csp.not_yet_defined"() : () -> ()
    wsp.call @other()
  }
  wsp.workload @other() {
  }
}

// CHECK: wsp.workload @outer(%t: !wsp.task) {
// CHECK-NEXT: %i = csp.coord %t[0]
// CHECK-NEXT: "csp.not_yet_defined"() : () -> ()
// CHECK-NEXT: wsp.call @other()
// CHECK-NEXT: }

// -----
// CHECK: //{{ }}-----

builtin.module {
  wsp.workload @a() level(npu) {
    wsp.call @b()
  }
  wsp.workload @b() level(npu) {
    wsp.call @c()
  }
  wsp.workload @c() {
  }
}

// CHECK: error: 'wsp.workload' op npu-level workload @b must not call cpu-level workload @c
