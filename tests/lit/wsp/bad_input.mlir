// RUN: pto-opt %s --split-input-file --parsing-diagnostics --verify-diagnostics | FileCheck %s
// RUN: not pto-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=EXIT

// Malformed input that once ended in a Python exception: each is an error at its place.
// EXIT-NOT: internal error
// EXIT-NOT: Traceback

// A second block in a region of the custom syntax (they all take one).
wsp.workload @w(%n: index) {
  // CHECK: bad_input.mlir:[[# @LINE + 1]]:15: error: this region takes a single block, got 2 (no ^bb labels)
  wsp.combine {
    wsp.sequential {
    }
  ^bb1:
  }
}

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%n: index) {
  %c = arith.constant true
  // CHECK: bad_input.mlir:[[# @LINE + 1]]:15: error: this region takes a single block
  wsp.cond %c {
    wsp.combine {
    }
  ^bb1:
  }
}

// -----
// CHECK: //{{ }}-----

// CHECK: bad_input.mlir:[[# @LINE + 1]]:30: error: this region takes a single block
wsp.kernel @k(n: index) cost {
^bb0(%n: index):
  wsp.yield %n : index
^bb1:
  wsp.yield %n : index
}

// -----
// CHECK: //{{ }}-----

// Integer literals beyond 64 bits (signed), at the literal: in arrays and scalars alike.
wsp.workload @w(%Q: memref<?x8xf32>) {
  // CHECK: bad_input.mlir:[[# @LINE + 2]]:20: error: integer constant out of range: 99999999999999999999999 does not fit in 64 bits (signed)
  // CHECK-NEXT: {{^}}  %q = wsp.view %Q[99999999999999999999999, 0] : memref<?x8xf32> -> memref<f32>
  %q = wsp.view %Q[99999999999999999999999, 0] : memref<?x8xf32> -> memref<f32>
}

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%Q: memref<?x8xf32>) {
  // 2^64 - 1 would have been stored as -1, the marker of an index entry.
  // CHECK: bad_input.mlir:[[# @LINE + 1]]:25: error: integer constant out of range: 18446744073709551615 does not fit
  %q = wsp.view %Q[0, 0:18446744073709551615] : memref<?x8xf32> -> memref<?xf32>
}

// -----
// CHECK: //{{ }}-----

// CHECK: bad_input.mlir:[[# @LINE + 1]]:16: error: integer constant out of range: 99999999999999999999 does not fit in 64 bits (signed)
%d = wsp.dense 99999999999999999999

// -----
// CHECK: //{{ }}-----

// An operand defined inside the op's own region is not in scope for it.
wsp.workload @w(%n: index) {
  // CHECK: bad_input.mlir:[[# @LINE + 1]]:12: error: use of undeclared SSA value %t
  wsp.cond %t {
    %t = arith.constant true
  }
}

// -----
// CHECK: //{{ }}-----

// A select names its one index: named() is a verifier error at the op.
wsp.workload @w(%s: !wsp.sparse, %r: index) {
  // CHECK: bad_input.mlir:[[# @LINE + 1]]:3: error: 'wsp.select' op wsp.select needs 1 index name(s), got 0
  wsp.select %e in %s[%r] named() : !wsp.sparse {
  }
}
