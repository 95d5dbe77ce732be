// RUN: pto-opt %s --split-input-file --parsing-diagnostics | FileCheck %s
// RUN: not pto-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=EXIT

// Malformed schedules that once ended in a Python exception: each is an error at its place.
// EXIT-NOT: internal error
// EXIT-NOT: Traceback

wsp.workload @w(%n: index) {
}
// A schedule body is one block of directives.
// CHECK: bad_input.mlir:[[# @LINE + 1]]:26: error: this region takes a single block, got 2 (no ^bb labels)
sched.schedule @s for @w {
  sched.streams 2
^bb1:
  sched.timing immediate
}

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%n: index) {
}
sched.schedule @s for @w {
  sched.streams 2
  // CHECK: bad_input.mlir:[[# @LINE + 1]]:33: error: this region takes a single block
  sched.stream_by key(%b = "b") {
    sched.yield %b : index
  ^bb1:
    sched.yield %b : index
  }
}

// -----
// CHECK: //{{ }}-----

// Integer literals beyond 64 bits (signed), at the literal: grid and layout arrays, counts.
wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
}
sched.schedule @s for @w {
  // CHECK: bad_input.mlir:[[# @LINE + 1]]:29: error: integer constant out of range: 99999999999999999999999 does not fit in 64 bits (signed)
  sched.spatial_map grid(2, 99999999999999999999999)
}

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%n: index, %Q: memref<?x8xf32>) {
}
sched.schedule @s for @w {
  sched.spatial_map grid(2)
  // CHECK: bad_input.mlir:[[# @LINE + 1]]:27: error: integer constant out of range: 18446744073709551616 does not fit in 64 bits (signed)
  sched.layout "Q" (shard(18446744073709551616), replicate)
}

// -----
// CHECK: //{{ }}-----

wsp.workload @w(%n: index) {
}
sched.schedule @s for @w {
  // CHECK: bad_input.mlir:[[# @LINE + 1]]:17: error: integer constant out of range: 9223372036854775808 does not fit in 64 bits (signed)
  sched.streams 9223372036854775808
}
