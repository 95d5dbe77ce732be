// RUN: pto-opt %s --split-input-file -p wsp-canonicalize | FileCheck %s

// A block is already a combine: a wsp.combine in a combined block (a workload body, a loop
// body, a branch, another combine) is inlined into it, helpers included.

wsp.kernel @a() unit(vector)
wsp.kernel @b() unit(vector)
wsp.kernel @c() unit(vector)
wsp.kernel @k(i: index) unit(vector)
wsp.workload @nested(%p: i1) {
  wsp.combine {
    wsp.task @a() resources()
    wsp.combine {
      wsp.task @b() resources()
      wsp.combine {
        wsp.task @c() resources()
      }
    }
  }
  %n = wsp.dense 2
  wsp.parallel_for %i in %n : !wsp.dense<2> {
    wsp.combine {
      %c7 = arith.constant 7 : index
      wsp.task @k(%c7 : index) resources()
      wsp.task @k(%i : index) resources()
    }
  }
  wsp.cond %p {
    wsp.combine {
      wsp.task @a() resources()
      wsp.task @b() resources()
    }
  }
}

// CHECK:      wsp.workload @nested(%p: i1) {
// CHECK-NEXT:   wsp.task @a() resources()
// CHECK-NEXT:   wsp.task @b() resources()
// CHECK-NEXT:   wsp.task @c() resources()
// CHECK-NEXT:   %n = wsp.dense 2
// CHECK-NEXT:   wsp.parallel_for %i in %n named("i") : !wsp.dense<2> {
// CHECK-NEXT:     %c7 = arith.constant 7 : index
// CHECK-NEXT:     wsp.task @k(%c7 : index) resources()
// CHECK-NEXT:     wsp.task @k(%i : index) resources()
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.cond %p {
// CHECK-NEXT:     wsp.task @a() resources()
// CHECK-NEXT:     wsp.task @b() resources()
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----

// Must not change: a combine of several children inside a sequential. Flattening it would
// order @b before @c.

wsp.kernel @a() unit(vector)
wsp.kernel @b() unit(vector)
wsp.kernel @c() unit(vector)
wsp.kernel @d() unit(vector)
wsp.workload @combine_in_sequential() {
  wsp.sequential {
    wsp.task @a() resources()
    wsp.combine {
      wsp.task @b() resources()
      wsp.task @c() resources()
    }
    wsp.task @d() resources()
  }
}

// CHECK:      wsp.workload @combine_in_sequential() {
// CHECK-NEXT:   wsp.sequential {
// CHECK-NEXT:     wsp.task @a() resources()
// CHECK-NEXT:     wsp.combine {
// CHECK-NEXT:       wsp.task @b() resources()
// CHECK-NEXT:       wsp.task @c() resources()
// CHECK-NEXT:     }
// CHECK-NEXT:     wsp.task @d() resources()
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----

// A combine with one child inside a sequential is replaced by that child; its helpers come
// along, before it.

wsp.kernel @a() unit(vector)
wsp.kernel @k(i: index) unit(vector)
wsp.workload @single_child_combine() {
  wsp.sequential {
    wsp.task @a() resources()
    wsp.combine {
      %c3 = arith.constant 3 : index
      wsp.task @k(%c3 : index) resources()
    }
  }
}

// CHECK:      wsp.workload @single_child_combine() {
// CHECK-NEXT:   wsp.sequential {
// CHECK-NEXT:     wsp.task @a() resources()
// CHECK-NEXT:     %c3 = arith.constant 3 : index
// CHECK-NEXT:     wsp.task @k(%c3 : index) resources()
// CHECK-NEXT:   }
// CHECK-NEXT: }
