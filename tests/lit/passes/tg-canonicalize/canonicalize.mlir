// RUN: pto-opt %s --split-input-file -p tg-canonicalize | FileCheck %s
// RUN: pto-opt %s --split-input-file -p tg-canonicalize 2>&1 >/dev/null | FileCheck %s --check-prefix=QUIET --allow-empty

wsp.kernel @k(i: index) unit(vector)

// Ordering points with nothing before or after them in their scope, and doubled ones, go;
// the one between two tasks stays.
// CHECK-LABEL: tg.program @points(%x: index) {
// CHECK-NEXT:    tg.ordered {
// CHECK-NEXT:      tg.task @k(%x : index) resources() pool(vector)
// CHECK-NEXT:      tg.order_point
// CHECK-NEXT:      tg.task @k(%x : index) resources() pool(vector)
// CHECK-NEXT:    }
// CHECK-NEXT:  }
tg.program @points(%x: index) {
  tg.ordered {
    tg.order_point
    tg.task @k(%x : index) resources() pool(vector)
    tg.order_point
    tg.order_point
    tg.task @k(%x : index) resources() pool(vector)
    tg.order_point
  }
}

// -----

wsp.kernel @k(i: index) unit(vector)

// A scope without ordering points is its body; a loop point orders iterations and stays.
// CHECK-LABEL: tg.program @scopes(%n: index) {
// CHECK-NEXT:    %{{.*}} = arith.constant 0 : index
// CHECK-NEXT:    %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:    tg.task @k(%n : index) resources() pool(vector)
// CHECK-NEXT:    tg.ordered {
// CHECK-NEXT:      scf.for %i = %{{.*}} to %n step %{{.*}} {
// CHECK-NEXT:        tg.task @k(%i : index) resources() pool(vector)
// CHECK-NEXT:        tg.order_point
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }
tg.program @scopes(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tg.ordered {
    tg.task @k(%n : index) resources() pool(vector)
  }
  tg.ordered {
    scf.for %i = %c0 to %n step %c1 {
      tg.task @k(%i : index) resources() pool(vector)
      tg.order_point
    }
  }
}

// -----

wsp.kernel @k(i: index) unit(vector)

// Loops that run no iteration or create nothing, empty branches and scopes are erased,
// and the values only they used with them.
// CHECK-LABEL: tg.program @empty(%n: index, %p: i1) {
// CHECK-NEXT:  }
tg.program @empty(%n: index, %p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c4 to %c0 step %c1 {
    tg.task @k(%i : index) resources() pool(vector)
  }
  scf.for %i = %c0 to %n step %c1 {
    %j = arith.addi %i, %c1 : index
  }
  scf.if %p {
  } else {
  }
  tg.ordered {
    tg.order_point
  }
}

// A successful run prints nothing on stderr (no DeprecationWarning of xDSL's API).
// QUIET-NOT: {{.}}
