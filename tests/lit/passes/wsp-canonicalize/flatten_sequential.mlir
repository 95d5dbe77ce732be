// RUN: pto-opt %s --split-input-file -p wsp-canonicalize | FileCheck %s

// sequential { a; sequential { b; c }; d } -> sequential { a; b; c; d }: sequencing is
// associative. Helpers of the inner sequential move with it and still precede their uses.

wsp.kernel @a() unit(vector)
wsp.kernel @b() unit(vector)
wsp.kernel @d() unit(vector)
wsp.kernel @k(i: index) unit(vector)
wsp.workload @nested() {
  wsp.sequential {
    wsp.task @a() resources()
    wsp.sequential {
      wsp.task @b() resources()
      %c1 = arith.constant 1 : index
      wsp.sequential {
        wsp.task @k(%c1 : index) resources()
        wsp.task @k(%c1 : index) resources()
      }
    }
    wsp.task @d() resources()
  }
}

// CHECK:      wsp.workload @nested() {
// CHECK-NEXT:   wsp.sequential {
// CHECK-NEXT:     wsp.task @a() resources()
// CHECK-NEXT:     wsp.task @b() resources()
// CHECK-NEXT:     %c1 = arith.constant 1 : index
// CHECK-NEXT:     wsp.task @k(%c1 : index) resources()
// CHECK-NEXT:     wsp.task @k(%c1 : index) resources()
// CHECK-NEXT:     wsp.task @d() resources()
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----

// A single-child sequential is replaced by its child, in any combined block. A sequential
// whose only child is a combine becomes that combine, which then flattens into the block.

wsp.kernel @a() unit(vector)
wsp.kernel @b() unit(vector)
wsp.kernel @k(i: index) unit(vector)
wsp.workload @single_child() {
  wsp.sequential {
    wsp.task @a() resources()
  }
  %n = wsp.dense 4
  wsp.for_each %i in %n : !wsp.dense<4> {
    wsp.sequential {
      wsp.task @k(%i : index) resources()
    }
  }
  wsp.sequential {
    wsp.combine {
      wsp.task @a() resources()
      wsp.task @b() resources()
    }
  }
}

// CHECK:      wsp.workload @single_child() {
// CHECK-NEXT:   wsp.task @a() resources()
// CHECK-NEXT:   %n = wsp.dense 4
// CHECK-NEXT:   wsp.for_each %i in %n named("i") : !wsp.dense<4> {
// CHECK-NEXT:     wsp.task @k(%i : index) resources()
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.task @a() resources()
// CHECK-NEXT:   wsp.task @b() resources()
// CHECK-NEXT: }

// -----

// Must not change: a sequential of two children in a workload body, and one in a combine
// next to another child (the combine flattens, the sequential stays).

wsp.kernel @a() unit(vector)
wsp.kernel @b() unit(vector)
wsp.kernel @c() unit(vector)
wsp.workload @kept() {
  wsp.sequential {
    wsp.task @a() resources()
    wsp.task @b() resources()
  }
  wsp.combine {
    wsp.sequential {
      wsp.task @b() resources()
      wsp.task @c() resources()
    }
    wsp.task @a() resources()
  }
}

// CHECK:      wsp.workload @kept() {
// CHECK-NEXT:   wsp.sequential {
// CHECK-NEXT:     wsp.task @a() resources()
// CHECK-NEXT:     wsp.task @b() resources()
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.sequential {
// CHECK-NEXT:     wsp.task @b() resources()
// CHECK-NEXT:     wsp.task @c() resources()
// CHECK-NEXT:   }
// CHECK-NEXT:   wsp.task @a() resources()
// CHECK-NEXT: }
