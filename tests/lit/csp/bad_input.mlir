// RUN: pto-opt %s --split-input-file --parsing-diagnostics | FileCheck %s
// RUN: not pto-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=EXIT

// Malformed pipelines that once ended in a Python exception: each is an error at its place.
// EXIT-NOT: internal error
// EXIT-NOT: Traceback

wsp.kernel @k(i: index)
csp.pipeline @p(%n: index) {
  csp.channel @c : !wsp.task capacity(2)
  // A process body is one block.
  // CHECK: bad_input.mlir:[[# @LINE + 1]]:31: error: this region takes a single block, got 2 (no ^bb labels)
  csp.process @a produces(@c) {
    csp.send @c {
      wsp.task @k(%n : index) resources()
    }
  ^bb1:
  }
}

// -----
// CHECK: //{{ }}-----

wsp.kernel @k(i: index)
csp.pipeline @p(%n: index) {
  // CHECK: bad_input.mlir:[[# @LINE + 1]]:39: error: integer constant out of range: 99999999999999999999 does not fit in 64 bits (signed)
  csp.channel @c : !wsp.task capacity(99999999999999999999)
}
