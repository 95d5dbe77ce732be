// RUN: pto-opt %s --split-input-file -p wsp-canonicalize | FileCheck %s

// Empty combines and sequentials, and conds whose branches are both empty, create no task
// and disappear — also inside a sequential, where they order nothing.

wsp.kernel @a() unit(vector)
wsp.kernel @b() unit(vector)
wsp.workload @empty(%p: i1) {
  wsp.combine {
  }
  wsp.sequential {
  }
  wsp.cond %p {
  } else {
  }
  wsp.sequential {
    wsp.task @a() resources()
    wsp.combine {
    }
    wsp.cond %p {
    }
    wsp.sequential {
    }
    wsp.task @b() resources()
  }
}

// CHECK:      wsp.workload @empty(%p: i1) {
// CHECK-NEXT:   wsp.sequential {
// CHECK-NEXT:     wsp.task @a() resources()
// CHECK-NEXT:     wsp.task @b() resources()
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----

// Groups made empty by other rewrites go too: a combine whose only child is a loop over an
// empty axis, a sequential of empty groups.

wsp.kernel @k(i: index) unit(vector)
wsp.workload @emptied() {
  %z = wsp.dense 0
  wsp.combine {
    wsp.parallel_for %i in %z : !wsp.dense<0> {
      wsp.task @k(%i : index) resources()
    }
  }
  wsp.sequential {
    wsp.combine {
    }
    wsp.sequential {
    }
  }
}

// CHECK:      wsp.workload @emptied() {
// CHECK-NEXT: }

// -----

// Must not change: a cond with one non-empty branch.

wsp.kernel @a() unit(vector)
wsp.workload @half_empty(%p: i1) {
  wsp.cond %p {
  } else {
    wsp.task @a() resources()
  }
}

// CHECK:      wsp.workload @half_empty(%p: i1) {
// CHECK-NEXT:   wsp.cond %p {
// CHECK-NEXT:   } else {
// CHECK-NEXT:     wsp.task @a() resources()
// CHECK-NEXT:   }
// CHECK-NEXT: }
