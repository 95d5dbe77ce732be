// RUN: pto-opt %s --split-input-file -p wsp-canonicalize | FileCheck %s

// A wsp.cond on a constant predicate is replaced by its taken branch (seed 000 §13.2): the
// branch's ops, helpers included, move in place of the cond; the constant, and values only
// the dropped branch used, die.

wsp.kernel @a() unit(vector)
wsp.kernel @b() unit(vector)
wsp.kernel @k(i: index, O: out memref<4xf32>) unit(vector)
wsp.workload @true_branch(%O: memref<8x4xf32>) {
  %t = arith.constant true
  %c1 = arith.constant 1 : index
  %v1 = wsp.view %O[%c1] : memref<8x4xf32> -> memref<4xf32>
  wsp.task @a() resources()
  wsp.cond %t {
    %c0 = arith.constant 0 : index
    %v0 = wsp.view %O[%c0] : memref<8x4xf32> -> memref<4xf32>
    wsp.task @k(%c0 : index) resources(%v0 : memref<4xf32>)
  } else {
    wsp.task @k(%c1 : index) resources(%v1 : memref<4xf32>)
  }
  wsp.task @b() resources()
}

// CHECK:      wsp.workload @true_branch(%O: memref<8x4xf32>) {
// CHECK-NEXT:   wsp.task @a() resources()
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// CHECK-NEXT:   %v0 = wsp.view %O[%c0] : memref<8x4xf32> -> memref<4xf32>
// CHECK-NEXT:   wsp.task @k(%c0 : index) resources(%v0 : memref<4xf32>)
// CHECK-NEXT:   wsp.task @b() resources()
// CHECK-NEXT: }

// -----

wsp.kernel @a() unit(vector)
wsp.kernel @b() unit(vector)
wsp.workload @false_branch() {
  %f = arith.constant false
  wsp.cond %f {
    wsp.task @a() resources()
  } else {
    wsp.task @b() resources()
    wsp.task @b() resources()
  }
}

// CHECK:      wsp.workload @false_branch() {
// CHECK-NEXT:   wsp.task @b() resources()
// CHECK-NEXT:   wsp.task @b() resources()
// CHECK-NEXT: }

// -----

// No else branch and a false predicate: nothing is left.

wsp.kernel @a() unit(vector)
wsp.workload @false_no_else() {
  %f = arith.constant false
  wsp.cond %f {
    wsp.task @a() resources()
  }
}

// CHECK:      wsp.workload @false_no_else() {
// CHECK-NEXT: }

// -----

// In a sequential, a taken branch of several children becomes a combine: spliced into the
// sequential, its children would be ordered. One child is spliced directly.

wsp.kernel @a() unit(vector)
wsp.kernel @b() unit(vector)
wsp.kernel @c() unit(vector)
wsp.workload @in_sequential() {
  %t = arith.constant true
  wsp.sequential {
    wsp.task @a() resources()
    wsp.cond %t {
      wsp.task @b() resources()
      wsp.task @c() resources()
    }
    wsp.cond %t {
      wsp.task @c() resources()
    }
  }
}

// CHECK:      wsp.workload @in_sequential() {
// CHECK-NEXT:   wsp.sequential {
// CHECK-NEXT:     wsp.task @a() resources()
// CHECK-NEXT:     wsp.combine {
// CHECK-NEXT:       wsp.task @b() resources()
// CHECK-NEXT:       wsp.task @c() resources()
// CHECK-NEXT:     }
// CHECK-NEXT:     wsp.task @c() resources()
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----

// Must not change: the predicate is only known at run time.

wsp.kernel @a() unit(vector)
wsp.kernel @b() unit(vector)
wsp.workload @runtime_predicate(%p: i1) {
  wsp.cond %p {
    wsp.task @a() resources()
  } else {
    wsp.task @b() resources()
  }
}

// CHECK:      wsp.workload @runtime_predicate(%p: i1) {
// CHECK-NEXT:   wsp.cond %p {
// CHECK-NEXT:     wsp.task @a() resources()
// CHECK-NEXT:   } else {
// CHECK-NEXT:     wsp.task @b() resources()
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----

// A cond in a loop body folds too; the constant may be defined outside the loop.

wsp.kernel @k(i: index) unit(vector)
wsp.workload @in_loop() {
  %t = arith.constant true
  %n = wsp.dense 4
  wsp.parallel_for %i in %n : !wsp.dense<4> {
    wsp.cond %t {
      wsp.task @k(%i : index) resources()
    }
  }
}

// CHECK:      wsp.workload @in_loop() {
// CHECK-NEXT:   %n = wsp.dense 4
// CHECK-NEXT:   wsp.parallel_for %i in %n named("i") : !wsp.dense<4> {
// CHECK-NEXT:     wsp.task @k(%i : index) resources()
// CHECK-NEXT:   }
// CHECK-NEXT: }
